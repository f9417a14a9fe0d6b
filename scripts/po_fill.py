"""Fill empty msgstr entries of a .po file from a JSON dictionary of msgid -> translation."""

import json
import re
import sys


def fill(po_path: str, json_path: str) -> int:
    table = json.load(open(json_path, encoding="utf-8"))
    text = open(po_path, encoding="utf-8").read()
    filled = 0

    def replace(match: re.Match) -> str:
        nonlocal filled
        msgid = match.group(1)
        if msgid in table:
            filled += 1
            return f'msgid "{msgid}"\nmsgstr "{table[msgid]}"'
        return match.group(0)

    text = re.sub(r'msgid "((?:[^"\\]|\\.)+)"\nmsgstr ""(?!\n")', replace, text)
    text = text.replace("#, fuzzy\n", "", 1) if filled else text
    open(po_path, "w", encoding="utf-8").write(text)
    return filled


if __name__ == "__main__":
    print(f"filled {fill(sys.argv[1], sys.argv[2])} entries")
