#!/usr/bin/env python3
"""Load time of an nmt export in the library that reads it (scripts/bench-export.sh), in this
fresh process, printed as one JSON line:

    export_load.py huggingface DIR SENTENCE     (.venv/hf's Python)
    export_load.py argos FILE.argosmodel SENTENCE PACKAGES_DIR   (.venv/argos's Python)

huggingface: seconds to import transformers, to load the model and the tokenizer
(from_pretrained), and to translate SENTENCE with the directory's generation settings.
argos: seconds to import argostranslate, to install the package (the first time only: when
PACKAGES_DIR holds none), and to translate SENTENCE, which loads the CTranslate2 model (Argos loads
it on first use). Sentence splitting is the identity (MiniSBD would download a model).
"""
import json
import os
import sys
import time


def huggingface(directory, sentence):
    started = time.perf_counter()
    import torch
    import transformers
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    imported = time.perf_counter()
    transformers.logging.set_verbosity_error()
    transformers.logging.disable_progress_bar()
    model = AutoModelForSeq2SeqLM.from_pretrained(directory, dtype=torch.float32).eval()
    tokenizer = AutoTokenizer.from_pretrained(directory)
    loaded = time.perf_counter()
    with torch.inference_mode():
        output = model.generate(**tokenizer([sentence], return_tensors="pt"))
    translation = tokenizer.batch_decode(output, skip_special_tokens=True)[0]
    done = time.perf_counter()
    return {
        "format": "huggingface", "import_s": imported - started, "load_s": loaded - imported,
        "first_translation_s": done - loaded, "translation": translation,
        "torch_threads": torch.get_num_threads(),
    }


def argos(package, sentence, packages_dir):
    os.environ["ARGOS_PACKAGES_DIR"] = packages_dir
    started = time.perf_counter()
    import argostranslate.package
    import argostranslate.sbd
    import argostranslate.translate

    argostranslate.sbd.MiniSBDSentencizer.split_sentences = lambda self, text: [text]
    imported = time.perf_counter()
    installed = False
    if not argostranslate.package.get_installed_packages():
        argostranslate.package.install_from_path(package)
        installed = True
    ready = time.perf_counter()
    found = argostranslate.package.get_installed_packages()[0]
    translation = argostranslate.translate.translate(sentence, found.from_code, found.to_code)
    done = time.perf_counter()
    return {
        "format": "argos", "import_s": imported - started,
        "install_s": ready - imported if installed else None,
        "load_and_first_translation_s": done - ready, "translation": translation,
    }


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("huggingface", "argos"):
        sys.exit(__doc__)
    if sys.argv[1] == "huggingface":
        result = huggingface(sys.argv[2], sys.argv[3])
    else:
        result = argos(os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4])
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
