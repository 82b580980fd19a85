set -e
NMT=/tmp/demo/nmt
cd /tmp/demo
$NMT prepare --config /work/main/configs/tatoeba-en-es.json --data /work/main/data/tatoeba-en-es/eng-spa.tsv.gz --out prep > prep.log 2>&1
cut -f1 prep/valid.tsv | head -1000 > dev.en; cut -f2 prep/valid.tsv | head -1000 > dev.es
cp prep/test.tsv test.tsv
cat > named.json <<JSON
{
  "data": {"train": ["/work/main/data/tatoeba-en-es/eng-spa.tsv.gz"],
           "valid": {"source": "/tmp/demo/dev.en", "target": "/tmp/demo/dev.es"},
           "test": "/tmp/demo/test.tsv", "max_words": 15, "seed": 23, "group_by_source": true},
  "text": {"clean": "normalize", "tokenizer": "sentencepiece", "vocab_size": 8000, "shared_vocab": true},
  "model": {"d_model": 256, "layers": 3, "heads": 4, "ff_mult": 4, "dropout": 0.1, "norm": "pre",
            "tie_embeddings": true, "share_embeddings": true, "scale_embeddings": true},
  "train": {"max_tokens": 4000, "epochs": 20, "max_steps": 700, "lr": 0.001, "schedule": "inverse_sqrt", "warmup": 300,
            "label_smoothing": 0.1, "clip_norm": 1.0, "seed": 23, "threads": 2,
            "valid_every": 100, "best_metric": "bleu", "valid_bleu_sentences": 500, "log_every": 50},
  "decode": {"strategy": "beam", "beam_size": 5}
}
JSON
$NMT train --config named.json --out run > train.log 2>&1
$NMT eval --model run --split test --json > eval.json 2> eval.log
$NMT report --model run --out run/report.html > report.log 2>&1 || true
