"""Checks and polling shared by the client scripts (configs_features.py, admin_gaps.py)."""

import time


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def unknown_topic(e):
    """The broker answering does not know the topic yet (confluent-kafka's KafkaError
    UNKNOWN_TOPIC_OR_PART, kafka-python's UnknownTopicOrPartitionError)."""
    return "UNKNOWN_TOPIC_OR_PART" in repr(e) or type(e).__name__ == "UnknownTopicOrPartitionError"


def wait_for(what, probe, limit=60.0):
    """Polls probe() until it returns a true value (retention and config changes run on the
    broker's clock). A topic created a moment ago may not be known yet to the broker answering
    (Kafka's brokers learn it from the controller a little later): only that error is retried,
    every other one fails at once."""
    deadline = time.time() + limit
    while True:
        try:
            v = probe()
        except Exception as e:
            if not unknown_topic(e) or time.time() > deadline:
                raise
            v = None
        if v:
            return v
        if time.time() > deadline:
            raise AssertionError(f"timed out waiting for {what} (last: {v!r})")
        time.sleep(0.2)
