"""Binary PPM (P6) parsing shared by the E2E judges: QMP screendumps and drm-grab captures."""


def parse_ppm(data, source="PPM"):
    """Returns (width, height, rgb_bytes) of a binary P6 image."""
    if data[:2] != b"P6":
        raise SystemExit("%s: not a binary PPM" % source)
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(int(data[start:pos]))
    width, height, _ = fields
    return width, height, data[pos + 1:pos + 1 + width * height * 3]
