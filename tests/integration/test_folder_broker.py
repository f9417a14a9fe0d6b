"""The folder broker publishes each message by an atomic rename, so a consumer never reads half of one.

(kombu's own filesystem transport fails the concurrent test below: its consumer moves and reads files
the producer is still writing, and the worker dies on the JSON error.)
"""

import os
import threading
import time

import pytest
from kombu import Connection
from kombu.transport.virtual.base import Empty

MESSAGES = 200


@pytest.fixture
def options(tmp_path):
    folder = tmp_path / "queue"
    folder.mkdir()
    return {"data_folder_in": str(folder), "data_folder_out": str(folder), "store_processed": False}


def channel_of(connection):
    return connection.default_channel


def connect(options):
    return Connection(
        "filesystem://localhost/", transport="karmada_ui.folder_broker:Transport", transport_options=options
    )


def test_a_published_message_is_complete_and_leaves_no_partial_file(options):
    with connect(options) as connection:
        channel = channel_of(connection)
        channel._put("health", {"body": "x" * 100_000})
        names = os.listdir(options["data_folder_in"])
        assert len(names) == 1 and names[0].endswith(".health.msg")
        assert channel._get("health") == {"body": "x" * 100_000}


def test_a_consumer_polling_while_a_producer_writes_reads_every_message_whole(options):
    received, errors = [], []

    def produce():
        with connect(options) as connection:
            channel = channel_of(connection)
            for number in range(MESSAGES):
                channel._put("health", {"n": number, "pad": "x" * 100_000})

    def consume():
        with connect(options) as connection:
            channel = channel_of(connection)
            while len(received) + len(errors) < MESSAGES:
                try:
                    received.append(channel._get("health")["n"])
                except Empty:
                    continue
                except Exception as exc:  # what the stock transport raises on a half-written file
                    errors.append(type(exc).__name__)

    consumer = threading.Thread(target=consume, daemon=True)
    consumer.start()
    produce()
    consumer.join(timeout=60)
    assert errors == []
    assert sorted(received) == list(range(MESSAGES))


def test_a_consumer_takes_its_queues_in_order_the_bulk_lane_only_once_the_first_is_empty(options):
    from kombu import Consumer, Queue

    received = []
    with connect(options) as connection:
        producer = connection.Producer()
        queues = [Queue(name, routing_key=name) for name in ("propagate", "propagate-bulk")]
        for queue in queues:
            queue(connection.default_channel).declare()
        for number in range(2):
            producer.publish({"n": f"bulk-{number}"}, routing_key="propagate-bulk")
            producer.publish({"n": f"event-{number}"}, routing_key="propagate")
            time.sleep(0.002)  # names order by the millisecond, then at random
        with Consumer(connection, queues=queues, callbacks=[lambda body, m: received.append(body["n"])]):
            for _ in range(4):
                connection.drain_events(timeout=5)
    # taking turns would have read bulk-0 second, right after the first queue was served
    assert received == ["event-0", "event-1", "bulk-0", "bulk-1"]
