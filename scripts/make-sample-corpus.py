#!/usr/bin/env python3
"""Writes data/sample/en-es.tsv: the small English-Spanish corpus bundled with nmt.

Every pair is composed here from a hand-written grammar (subjects, conjugated verbs, objects,
places, adjectives with gender agreement), so the corpus is ours to distribute (CC0) and
regenerates byte for byte: python3 scripts/make-sample-corpus.py > data/sample/en-es.tsv
"""
import itertools

PERSONS = [  # English subject, English verb suffix rule, Spanish subject, Spanish person index, gender
    ("I", 0, "Yo", 0, "m"),
    ("You", 0, "Tú", 1, "m"),
    ("He", 1, "Él", 2, "m"),
    ("She", 1, "Ella", 2, "f"),
    ("We", 0, "Nosotros", 3, "m"),
    ("They", 0, "Ellos", 4, "m"),
]

VERBS = {  # English base, English third person, Spanish forms (yo, tú, él/ella, nosotros, ellos)
    "eat": ("eat", "eats", ["como", "comes", "come", "comemos", "comen"]),
    "drink": ("drink", "drinks", ["bebo", "bebes", "bebe", "bebemos", "beben"]),
    "read": ("read", "reads", ["leo", "lees", "lee", "leemos", "leen"]),
    "want": ("want", "wants", ["quiero", "quieres", "quiere", "queremos", "quieren"]),
    "have": ("have", "has", ["tengo", "tienes", "tiene", "tenemos", "tienen"]),
    "see": ("see", "sees", ["veo", "ves", "ve", "vemos", "ven"]),
    "buy": ("buy", "buys", ["compro", "compras", "compra", "compramos", "compran"]),
    "need": ("need", "needs", ["necesito", "necesitas", "necesita", "necesitamos", "necesitan"]),
}

OBJECTS = {
    "eat": [("an apple", "una manzana"), ("bread", "pan"), ("the soup", "la sopa"), ("fish", "pescado"),
            ("rice", "arroz"), ("a sandwich", "un sándwich")],
    "drink": [("water", "agua"), ("milk", "leche"), ("coffee", "café"), ("tea", "té"), ("juice", "jugo")],
    "read": [("a book", "un libro"), ("the newspaper", "el periódico"), ("a letter", "una carta"),
             ("the menu", "el menú")],
    "want": [("a car", "un coche"), ("a house", "una casa"), ("a dog", "un perro"), ("a new phone", "un teléfono nuevo")],
    "have": [("a cat", "un gato"), ("two brothers", "dos hermanos"), ("a big garden", "un jardín grande"),
             ("three books", "tres libros")],
    "see": [("the sea", "el mar"), ("the mountains", "las montañas"), ("a bird", "un pájaro"), ("the city", "la ciudad")],
    "buy": [("flowers", "flores"), ("a red shirt", "una camisa roja"), ("the tickets", "los boletos"),
            ("some shoes", "unos zapatos")],
    "need": [("help", "ayuda"), ("more time", "más tiempo"), ("a doctor", "un médico"), ("money", "dinero")],
}

PLACES = [("the station", "la estación"), ("the bank", "el banco"), ("the library", "la biblioteca"),
          ("the hotel", "el hotel"), ("the museum", "el museo"), ("the beach", "la playa"),
          ("the hospital", "el hospital"), ("the school", "la escuela"), ("the market", "el mercado")]

STATES = [("tired", "cansado"), ("happy", "contento"), ("sick", "enfermo"), ("ready", "listo"), ("busy", "ocupado")]
ESTAR = ["estoy", "estás", "está", "estamos", "están"]

THINGS = [("car", "coche", "m"), ("house", "casa", "f"), ("door", "puerta", "f"), ("book", "libro", "m"),
          ("table", "mesa", "f"), ("hat", "sombrero", "m")]
COLORS = [("red", "rojo"), ("white", "blanco"), ("black", "negro"), ("new", "nuevo"), ("small", "pequeño")]

LIKES = [("music", "la música"), ("coffee", "el café"), ("dogs", "los perros"), ("the beach", "la playa"),
         ("movies", "las películas"), ("this city", "esta ciudad")]
LIKE_PRONOUN = ["Me", "Te", "Le", "Le", "Nos", "Les"]
LIKE_PREFIX = ["", "", "A él ", "A ella ", "", "A ellos "]

FIXED = [
    ("Hello!", "¡Hola!"), ("Good morning.", "Buenos días."), ("Good night.", "Buenas noches."),
    ("Thank you.", "Gracias."), ("Thank you very much.", "Muchas gracias."), ("You are welcome.", "De nada."),
    ("See you tomorrow.", "Hasta mañana."), ("How are you?", "¿Cómo estás?"), ("I am fine.", "Estoy bien."),
    ("What is your name?", "¿Cómo te llamas?"), ("My name is Tom.", "Me llamo Tom."),
    ("It is cold today.", "Hoy hace frío."), ("It is hot today.", "Hoy hace calor."),
    ("It is raining.", "Está lloviendo."), ("What time is it?", "¿Qué hora es?"),
    ("I am hungry.", "Tengo hambre."), ("I am thirsty.", "Tengo sed."), ("We are hungry.", "Tenemos hambre."),
    ("Are you hungry?", "¿Tienes hambre?"), ("She is hungry.", "Ella tiene hambre."),
    ("I don't know.", "No sé."), ("I understand.", "Entiendo."), ("I don't understand.", "No entiendo."),
    ("Help me, please.", "Ayúdame, por favor."), ("Come here.", "Ven aquí."), ("Wait a moment.", "Espera un momento."),
    ("Do you speak English?", "¿Hablas inglés?"), ("I speak a little Spanish.", "Hablo un poco de español."),
    ("Where do you live?", "¿Dónde vives?"), ("I live in Madrid.", "Vivo en Madrid."),
    ("How much does it cost?", "¿Cuánto cuesta?"), ("The food is very good.", "La comida está muy buena."),
]


def sentence(text):
    return text[0].upper() + text[1:]


def pairs():
    out = list(FIXED)
    for (en_subj, third, es_subj, person, _), (verb, (base, third_form, forms)) in itertools.product(PERSONS, VERBS.items()):
        en_verb = third_form if third else base
        for en_obj, es_obj in OBJECTS[verb]:
            out.append((f"{en_subj} {en_verb} {en_obj}.", f"{es_subj} {forms[person]} {es_obj}."))
        en_obj, es_obj = OBJECTS[verb][0]
        en_not = "doesn't" if third else "don't"
        out.append((f"{en_subj} {en_not} {base} {en_obj}.", f"{es_subj} no {forms[person]} {es_obj}."))
    for index, (en_subj, third, es_subj, person, gender) in enumerate(PERSONS):
        en_be = {"I": "am", "He": "is", "She": "is"}.get(en_subj, "are")
        for en_state, es_state in STATES:
            es_adj = es_state[:-1] + "a" if gender == "f" else es_state
            if person >= 3:
                es_adj += "s"
            out.append((f"{en_subj} {en_be} {en_state}.", f"{es_subj} {ESTAR[person]} {es_adj}."))
        for en_like, es_like in LIKES:
            plural = es_like.split()[0] in ("los", "las")
            en_verb = "likes" if third else "like"
            prefix, pronoun = LIKE_PREFIX[index], LIKE_PRONOUN[index]
            es = f"{prefix}{pronoun.lower() if prefix else pronoun} gusta{'n' if plural else ''} {es_like}."
            out.append((f"{en_subj} {en_verb} {en_like}.", sentence(es)))
    for en_place, es_place in PLACES:
        out.append((f"Where is {en_place}?", f"¿Dónde está {es_place}?"))
        out.append((f"{sentence(en_place)} is closed.", f"{sentence(es_place)} está cerrado." if es_place.startswith("el") else f"{sentence(es_place)} está cerrada."))
        out.append((f"We are going to {en_place}.", f"Vamos a{'l' if es_place.startswith('el ') else ''} {es_place[3:] if es_place.startswith('el ') else es_place}."))
    for (en_thing, es_thing, gender), (en_color, es_color) in itertools.product(THINGS, COLORS):
        article = "La" if gender == "f" else "El"
        es_adj = es_color[:-1] + "a" if gender == "f" and es_color.endswith("o") else es_color
        out.append((f"The {en_thing} is {en_color}.", f"{article} {es_thing} es {es_adj}."))
    return out


def main():
    for en, es in pairs():
        print(f"{en}\t{es}")


if __name__ == "__main__":
    main()
