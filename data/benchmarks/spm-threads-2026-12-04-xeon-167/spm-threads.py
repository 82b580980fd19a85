#!/usr/bin/python3
# SentencePiece 0.1.97 (Debian's) on nmt's trainer arguments: wall time and model bytes for a
# num_threads, so that runs can be compared for speed and for identical output.
import hashlib, sys, time
import sentencepiece as spm
sentences_file, threads, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
spm.set_random_generator_seed(23)  # as nmt seeds it (src/text/sentencepiece_backend.cpp)
start = time.time()
spm.SentencePieceTrainer.train(
    input=sentences_file, model_prefix=out, model_type="unigram", vocab_size=8000,
    character_coverage=1.0, normalization_rule_name="identity", byte_fallback=True,
    hard_vocab_limit=False, pad_id=0, bos_id=1, eos_id=2, unk_id=3,
    pad_piece="<PAD>", bos_piece="<SOS>", eos_piece="<EOS>", unk_piece="<UNK>",
    num_threads=threads, minloglevel=2, input_sentence_size=0, shuffle_input_sentence=False,
    train_extremely_large_corpus=False)
elapsed = time.time() - start
digest = hashlib.sha256(open(out + ".model", "rb").read()).hexdigest()[:16]
print(f"num_threads {threads}: {elapsed:.1f} s, model sha256 {digest}")
