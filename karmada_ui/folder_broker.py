"""The local folder broker with atomic writes: a message file appears in the queue only once complete.

kombu's filesystem transport writes each message straight into the queue folder while a consumer may
already be moving it away, so a consumer can read an empty file and the worker dies on the JSON error.
Writing to a hidden temporary name and renaming it (atomic within one folder) closes that window.
Its consumer also asks its queues in the order it consumes them (a worker's `-Q` order), as the Redis
transport does with queue_order_strategy "priority", where kombu's would take turns.
"""

from __future__ import annotations

import os
import uuid
from queue import Empty
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps
from kombu.utils.scheduling import FairCycle


class InOrder(FairCycle):
    """Each look for a message starts at the first queue: a later one is read only while those before
    it are empty (the event-driven queues before the bulk lanes)."""

    def get(self, callback: Any, **kwargs: Any) -> Any:
        self.pos = 0
        return super().get(callback, **kwargs)


class Channel(filesystem.Channel):
    def _reset_cycle(self) -> None:
        self._cycle = InOrder(self._get_and_deliver, self._active_queues, Empty)

    # kombu names the second argument `message` in one base class and `payload` in the other.
    def _put(self, queue: Any, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        # A name without the ".<queue>.msg" suffix is skipped by consumers until it is renamed.
        partial = os.path.join(self.data_folder_out, f".partial-{uuid.uuid4().hex}")
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
