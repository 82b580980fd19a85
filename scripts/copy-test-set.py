#!/usr/bin/env python3
"""Writes the copy test set: English sentences holding numbers, names, codes, URLs and e-mail
addresses that a correct Spanish translation keeps verbatim (docs/real-text.md, issue 64).

    scripts/copy-test-set.py OUT.tsv

150 sentences of our own making (so ours to distribute, CC0), 30 per category, each a line of
OUT.tsv:

    source<TAB>category<TAB>span1|span2|...

category is one of number, name, code, url, email; the spans are the substrings of the source
(all of that category) that the translation must contain as written. Each sentence is one of
about ten short everyday templates per category (5 to 15 words, Tatoeba-like) filled with
values drawn by a fixed seed, so the file regenerates byte for byte. Only values whose written
form is right in Spanish too: integers without thousands separators or decimals (Spanish writes
1.000 and 2,5), years, phone numbers (555-0199), times (10:30), codes (AB-1234, LH2041),
postcodes, example.org URLs, example.com e-mail addresses, and Polish, Hungarian, Finnish, Czech
and Vietnamese names and small towns that Spanish leaves as they are (not Kraków/Cracovia or
Wrocław/Breslavia). URLs and e-mail addresses never start a sentence, where sentence case would
capitalise them. scripts/bench-copying.sh translates the sources and scripts/count-verbatim.py
counts the spans kept.
"""
import random
import re
import string
import sys

SEED = 20261130
PER_CATEGORY = 30

FULL_NAMES = [  # first name and surname of one language, as Spanish writes them too
    "Zbigniew Kowalczyk", "Małgorzata Wiśniewska", "Grzegorz Brzeziński", "Agnieszka Szymańska",
    "Przemysław Grabowski", "Bożena Zielińska", "Ryszard Wróblewski", "Zsófia Kovács",
    "Gyula Szabó", "Ildikó Horváth", "Csaba Nagy", "Erzsébet Tóth", "Jukka Virtanen",
    "Päivi Korhonen", "Tuomas Mäkinen", "Sirpa Järvinen", "Jiří Dvořák", "Zdeněk Novotný",
    "Vratislav Procházka", "Radka Svobodová", "Dagmar Černá",
]
VIETNAMESE = ["Nguyen Van Minh", "Tran Thi Lan", "Pham Quoc Bao", "Le Thi Hoa", "Vo Thanh Tung",
              "Hoang Duc Anh", "Dang Thi Mai", "Bui Quang Huy"]
FIRST_NAMES = [name.split()[0] for name in FULL_NAMES] + ["Thanh", "Huong"]
TOWNS = [
    "Szczecin", "Bydgoszcz", "Olsztyn", "Rzeszów", "Białystok", "Debrecen", "Szeged",
    "Kecskemét", "Pécs", "Jyväskylä", "Tampere", "Kuopio", "Oulu", "Brno", "Olomouc",
    "Ostrava", "Hradec Králové", "Nha Trang", "Can Tho",
]
URL_SCHEMES = ["https://", "http://", "www.", "https://www."]
URL_HOSTS = ["example.org", "example.com", "example.net", "test.example.net", "shop.example.com",
             "docs.example.org", "my-town.example.org"]
URL_PATHS = ["", "/docs", "/contact", "/help/faq", "/tickets", "/a?b=1", "/recipes/soup",
             "/2024/photos", "/download/v2", "/en/news", "/forms/tax-2023.pdf", "/shop?id=4471"]
MAIL_LOCALS = ["ana.lopez", "j.kowalski", "info", "support", "zsofia.szabo", "tickets2024",
               "m_nguyen", "jukka.virtanen", "office", "dvorak.jiri", "hello", "orders-eu",
               "kasia.nowak", "b.horvath", "sales", "team.brno", "t.nguyen", "reception"]
MAIL_HOSTS = ["example.com", "example.org", "example.net", "mail.example.org", "school.example.com"]


def code_like(rng, pattern):
    """L: upper-case letter, D: digit, anything else as is."""
    return "".join(rng.choice(string.ascii_uppercase) if c == "L" else
                   rng.choice("123456789" if i == 0 else string.digits) if c == "D" else c
                   for i, c in enumerate(pattern))


VALUES = {  # placeholder name (without a trailing digit) -> value drawn with rng
    "n": lambda r: str(r.randint(12, 4999)),
    "small": lambda r: str(r.randint(11, 99)),
    "year": lambda r: str(r.randint(1950, 2030)),
    "phone": lambda r: f"555-{r.randint(100, 199):04d}",
    "time": lambda r: f"{r.randint(6, 22)}:{r.choice(['00', '15', '30', '45', '05', '50'])}",
    "room": lambda r: str(r.randint(101, 950)),
    "first": lambda r: r.choice(FIRST_NAMES),
    "full": lambda r: r.choice(VIETNAMESE if r.random() < 0.25 else FULL_NAMES),
    "town": lambda r: r.choice(TOWNS),
    "code": lambda r: code_like(r, r.choice(["LL-DDDD", "LDL-DD", "LLL-DDD", "DDLL-DD",
                                             "LLDDDLL"])),
    "flight": lambda r: code_like(r, r.choice(["LLDDDD", "LLDDD", "LL DDDD"])),
    "plate": lambda r: code_like(r, r.choice(["LLL DDDD", "DDDD LLL", "LL-DDD-LL"])),
    "postcode": lambda r: code_like(r, r.choice(["DD-DDD", "DDDDD", "DDD DD"])),
    "invoice": lambda r: code_like(r, r.choice(["INV-DDDD", "FV/DDDD/DD", "DDDD-LL-DDD"])),
    "error": lambda r: code_like(r, r.choice(["E-DDDD", "ERR-DDD", "0xDDDDDDDD"])),
    "url": lambda r: r.choice(URL_SCHEMES) + r.choice(URL_HOSTS) + r.choice(URL_PATHS),
    "email": lambda r: f"{r.choice(MAIL_LOCALS)}@{r.choice(MAIL_HOSTS)}",
}

TEMPLATES = {  # category -> templates; every placeholder is a span of that category
    "number": [
        "My phone number is {phone}.",
        "We sold {n} cars in {year}.",
        "The train leaves at {time}.",
        "There are {n} students in this school.",
        "She was born in {year}.",
        "Room {room} is on the third floor.",
        "Call me at {phone} after {time}.",
        "He paid {n} euros for the old bike.",
        "The book has {n} pages.",
        "Our house was built in {year}.",
        "I walked {small} kilometers yesterday.",
        "The shop opens at {time} on Sundays.",
    ],
    "name": [
        "{first} still lives in {town}.",
        "{full} is my new neighbor.",
        "My friend {first} works in {town}.",
        "{full} is a doctor in {town}.",
        "I met {first} at the station.",
        "{first} and {first2} are old friends.",
        "Have you seen {first} today?",
        "{full} wrote this book.",
        "We visited {town} last summer.",
        "Please give this letter to {full}.",
        "The new teacher is called {full}.",
    ],
    "code": [
        "Your order number is {code}.",
        "The flight {flight} is late again.",
        "Please enter the code {code} on the website.",
        "My car's license plate is {plate}.",
        "The password for the wifi is {code}.",
        "Send the parcel to postcode {postcode}.",
        "Ticket {code} is not valid.",
        "Use the voucher {code} to get a discount.",
        "Our invoice number is {invoice}.",
        "The error code {error} means the disk is full.",
        "Her flight number is {flight}.",
    ],
    "url": [
        "Visit {url} for more information.",
        "The form is on {url}.",
        "You can download it from {url}.",
        "Our new website is {url}.",
        "Read the instructions at {url}.",
        "The photos are at {url} now.",
        "Open {url} in your browser.",
        "I found the recipe on {url}.",
        "The address of the shop is {url}.",
        "Go to {url} to buy tickets.",
    ],
    "email": [
        "Write to {email} if you have questions.",
        "My e-mail address is {email}.",
        "Send the photos to {email}, please.",
        "You can contact {email} at any time.",
        "Please reply to {email} by Friday.",
        "Her new address is {email}.",
        "I wrote to {email} yesterday.",
        "The teacher's e-mail is {email}.",
        "All complaints go to {email}.",
        "Please copy {email} on every message.",
    ],
}

PLACEHOLDER = re.compile(r"\{(\w+?)\d*\}")


def fill(rng, template):
    """The sentence and its spans, or None when two spans would clash."""
    spans = []
    def value(match):
        spans.append(VALUES[match.group(1)](rng))
        return spans[-1]
    source = PLACEHOLDER.sub(value, template)
    if any(a in b for i, a in enumerate(spans) for j, b in enumerate(spans) if i != j):
        return None  # "Jukka and Jukka", or a span inside another: each span must stand alone
    return source, spans


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/copy-test-set.py OUT.tsv")
    rng = random.Random(SEED)
    rows, seen = [], set()
    for category, templates in TEMPLATES.items():
        count = 0
        while count < PER_CATEGORY:
            filled = fill(rng, templates[count % len(templates)])
            if filled is None or filled[0] in seen:
                continue
            source, spans = filled
            words = len(source.split())
            assert 5 <= words <= 15, source
            assert all(span in source and not set("\t|") & set(span) for span in spans), source
            seen.add(source)
            rows.append(f"{source}\t{category}\t{'|'.join(spans)}\n")
            count += 1
    with open(sys.argv[1], "w", encoding="utf-8") as out:
        out.writelines(rows)


if __name__ == "__main__":
    main()
