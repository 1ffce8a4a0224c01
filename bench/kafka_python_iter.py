"""The reference of bench/run.sh's first row: kafka-python iterating every batch and record of a
segment file (CRC checked, key, value and headers touched), as a consumer does after a fetch.
Prints `SECONDS RECORDS` (timed inside the process, file already read into memory)."""
import mmap
import sys
import time

from kafka.record import MemoryRecords


def main(path):
    with open(path, "rb") as f:
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        start = time.perf_counter()
        records = MemoryRecords(data)
        n = 0
        touched = 0
        while True:
            batch = records.next_batch()
            if batch is None:
                break
            if not batch.validate_crc():
                raise SystemExit("bad CRC")
            for r in batch:
                n += 1
                touched += len(r.value or b"") + len(r.key or b"") + len(r.headers)
        secs = time.perf_counter() - start
        print(f"{secs:.4f} {n} {touched & 1}")


if __name__ == "__main__":
    main(sys.argv[1])
