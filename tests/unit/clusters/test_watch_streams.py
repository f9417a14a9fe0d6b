"""The chunked body of a watch read in pieces as they arrive: lines split across chunks and reads."""

from clusters.k8s.watch_streams import ChunkedLines


def chunked(*pieces: bytes) -> bytes:
    return b"".join(b"%x\r\n%b\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def test_lines_split_across_chunks_and_reads_come_out_whole_and_the_last_chunk_ends_the_body():
    body = chunked(b'{"a":1}\n{"b"', b":2}\n", b'{"c":3}\n')
    lines = ChunkedLines()
    out = []
    for at in range(len(body)):  # one byte a read: the worst a socket can do
        out += lines.feed(body[at : at + 1])
        assert lines.ended == (at >= len(body) - len(b"\r\n") - 1)  # once "0\r\n" is in
    assert out == [b'{"a":1}', b'{"b":2}', b'{"c":3}']
    assert lines.ended


def test_a_chunk_extension_and_blank_lines_are_ignored_and_nothing_after_the_end_is_read():
    lines = ChunkedLines()
    out = lines.feed(b'9;name=value\r\n\n{"a":1}\n\r\n0\r\n\r\n' + b"5\r\nextra\r\n")
    assert out == [b'{"a":1}']
    assert lines.ended


def test_a_plain_body_is_read_as_lines_and_what_is_left_at_its_end_is_the_last_line():
    lines = ChunkedLines(chunked=False)
    assert lines.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert lines.feed(b":2}") == []
    assert lines.rest() == [b'{"b":2}']
