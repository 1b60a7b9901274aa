#!/usr/bin/env python3
"""Writes the damaged-database corpus of the results_database fuzz target.

  make_results_database_corpus.py BASE.db OUT_DIR

BASE.db is a small study written by `paritylab-cli run` (2 backends x 2 seeds of the MLP on
synthetic data, keep_weights epochs, xray every 4 steps). Its weight snapshots are cut to 8
values per layer and its X-ray to 12 rows so that the corpus stays small; every other file is BASE with one kind of damage:
cut bytes, overwritten pages, impossible values, broken references, dropped tables and indexes,
damaged blobs, a stored study that does not parse.
"""
import os
import shutil
import sqlite3
import struct
import sys
import zlib

base, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
valid = os.path.join(out, "valid.db")
shutil.copy(base, valid)
db = sqlite3.connect(valid)
db.execute("PRAGMA journal_mode=DELETE")
small = zlib.compress(struct.pack("<8f", *[0.125 * i for i in range(8)]))
db.execute("UPDATE weights SET count = 8, data = ?", (small,))
db.execute("DELETE FROM xray WHERE rowid NOT IN (SELECT rowid FROM xray ORDER BY rowid LIMIT 12)")
db.commit()
db.execute("PRAGMA page_size = 1024")
db.execute("VACUUM")
db.close()
data = open(valid, "rb").read()


def write(name, content):
    with open(os.path.join(out, name), "wb") as f:
        f.write(content)


def damaged(name, *statements):
    path = os.path.join(out, name)
    shutil.copy(valid, path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA foreign_keys = OFF")
    for s in statements:
        con.executescript(s)
    con.commit()
    con.close()


page = 1024
write("empty.db", b"")
write("cut-one-byte.db", data[:-1])
write("cut-half.db", data[: len(data) // 2])
write("header-flipped.db", bytes([data[0] ^ 0xFF]) + data[1:])
write("page-size-zero.db", data[:16] + b"\0\0" + data[18:])
write("third-page-zeroed.db", data[: 2 * page] + bytes(page) + data[3 * page :])
write("last-page-garbage.db", data[:-page] + bytes((i * 37) & 0xFF for i in range(page)))
damaged("final-accuracy-five.db", "UPDATE runs SET final_accuracy = 5.0")
damaged("final-accuracy-text.db", "UPDATE runs SET final_accuracy = 'seventy'")
damaged("seed-negative.db", "UPDATE runs SET seed = -1 WHERE id = 1")
damaged("status-unknown.db", "UPDATE runs SET status = 'sleeping'")
damaged("epoch-negative.db", "UPDATE epochs SET epoch = -2 WHERE run_id = 1 AND epoch = 2")
damaged("steps-lr-negative.db", "UPDATE steps SET lr = -1")
damaged("xray-zeros-beyond-count.db", "UPDATE xray SET zeros = count + 1")
damaged("xray-histogram-garbage.db", "UPDATE xray SET exponent_histogram = 'x:y 3:-1'")
damaged("xray-orphan.db", "UPDATE xray SET run_id = 99")
damaged("steps-dropped.db", "DROP TABLE steps")
damaged("test-set-dropped.db", "DROP TABLE test_set")
damaged(
    "run-stored-twice.db",
    "DROP INDEX runs_emulated_identity",
    "INSERT INTO runs (backend, policy, seed, status) SELECT backend, policy, seed, status "
    "FROM runs WHERE id = 1",
)
damaged("backend-not-in-study.db", "UPDATE runs SET backend = 'gpu-fp64' WHERE id = 1")
damaged("study-not-json.db", "UPDATE study SET spec = '{\"version\": 1, \"name\": '")
damaged("weights-blob-garbage.db", "UPDATE weights SET data = x'789c0102030405'")
damaged("weights-count-huge.db", "UPDATE weights SET count = 2000000000000")
damaged("predictions-blob-short.db", "UPDATE predictions SET predicted = x'789c6300000001000100'")
damaged("predictions-examples-huge.db", "UPDATE predictions SET examples = 2000000000000")
damaged("test-set-examples-huge.db", "UPDATE test_set SET examples = 2000000000000")
damaged("test-set-class-names-garbage.db", "UPDATE test_set SET class_names = '[1, {'")
damaged("meta-format-foreign.db", "UPDATE paritylab_meta SET value = 'other' WHERE key = 'format'")
damaged("schema-version-future.db",
        "UPDATE paritylab_meta SET value = '99' WHERE key = 'schema_version'")
