"""membersim's own header split gives what http.client's parser gives, for plain and unusual blocks."""

import http.client
import io

import pytest

from membersim.server import _headers

BLOCKS = [
    b"Host: 127.0.0.1:6443\r\nAccept: application/json\r\nContent-Length: 12\r\n\r\n",
    b"Host: a\r\nAuthorization: Bearer abc:def\r\nX-Empty:\r\nX-Spaces: \t padded \r\n\r\n",
    b"Host: a\nAccept: */*\n\n",  # bare newlines
    b"Cookie: a=1\r\nCookie: b=2\r\n\r\n",  # repeated names keep both, in order
    b"X-Folded: first\r\n second\r\nHost: a\r\n\r\n",  # obsolete line folding
    b"Bad Name: value\r\nHost: a\r\n\r\n",  # not a header line: the email parser's defect handling
    b"X-CR: a\rb\r\nHost: a\r\n\r\n",  # a bare CR inside a value
    b"Host: a\r\nX-Caf\xe9: \xe9t\xe9\r\n\r\n",  # Latin-1 bytes
    b"\r\n",  # no headers at all
    b"Host: a\r\n",  # the connection closed before the blank line
]


def read_lines(block: bytes) -> list[bytes]:
    """The lines the handler reads: up to the blank line, or to the end of the stream (b"")."""
    stream, lines = io.BytesIO(block), []
    while True:
        lines.append(stream.readline())
        if lines[-1] in (b"\r\n", b"\n", b""):
            return lines


@pytest.mark.parametrize("block", BLOCKS)
def test_request_headers_are_split_as_http_client_splits_them(block):
    expected = http.client.parse_headers(io.BytesIO(block))
    got = _headers(read_lines(block))
    assert got.items() == expected.items()
    assert got.get("host") == expected.get("host")
    assert got.get_all("cookie") == expected.get_all("cookie")
