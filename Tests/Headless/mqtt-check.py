#!/usr/bin/env python3
"""tickerboard-mqtt against a real mosquitto broker on loopback and the real daemon on the headless
display: the Home Assistant discovery configs are retained, commands published as Home Assistant
would publish them reach the screen (status file), state comes back, the picture is published as a
PNG, a broker restart is survived (discovery sent again), the last will says `offline` when the
bridge dies, an instrument removed by a reload loses its sensors, and two walls made from one image
(no node-id, their own machine ids) stay connected side by side under node ids of their own; every
discovery config has the fields Home Assistant's MQTT platform schemas require (MQTT_RO_SCHEMA:
state_topic, MQTT_RW_SCHEMA: command_topic, event: event_types, select: options, image:
image_topic), the diagnostic sensors say what the status file says (missed vblanks, memory, the
SoC's temperature from a thermal zone, an instrument's newest data), and an alert that fires after a
reload reaches Home Assistant as an event. Every wait is for an observable state (a message, a
status file), never a fixed sleep.

usage: mqtt-check.py TICKERBOARD_BINARY TICKERBOARD_MQTT_BINARY DATA_CSV
Prints RESULT <name> PASS|FAIL lines and a closing 'N passed, N failed' line.
"""
import json, os, shutil, signal, socket, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tbcheck import read_json, stop, wait_for  # noqa: E402

BIN, BRIDGE, CSV = (os.path.abspath(a) for a in sys.argv[1:4])
results = []


def result(name, ok, detail=""):
    results.append(ok)
    print("RESULT %s %s%s" % (name, "PASS" if ok else "FAIL", (" " + detail) if detail else ""), flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


work = tempfile.mkdtemp(prefix="tb-mqtt-")
port = free_port()
sock, state, conf = (os.path.join(work, n) for n in ("control", "status.json", "t.conf"))
for name in ("A", "B"):
    shutil.copy(CSV, os.path.join(work, name + ".csv"))
with open(conf, "w") as f:
    f.write("[data]\ndirectory = %s\n[instrument A]\ndaily = A.csv\n[instrument B]\ndaily = B.csv\ncurrency = EUR\n"
            "[mqtt]\nhost = 127.0.0.1\nport = %d\ncontrol = %s\nnode-id = hall\npoll-interval = 1s\n" % (work, port, sock))
with open(os.path.join(work, "broker.conf"), "w") as f:
    f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % port)


def broker():
    p = subprocess.Popen(["mosquitto", "-c", os.path.join(work, "broker.conf")],
                         stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "broker.log"), "a"))
    def listening():
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            return False
    return p if wait_for(listening, 20) else p


def sub(topic, count, deadline=30, binary=False):
    """The first `count` messages on `topic` (retained ones included), or what came before the deadline."""
    r = subprocess.run(["mosquitto_sub", "-p", str(port), "-h", "127.0.0.1", "-t", topic, "-v" if not binary else "-N",
                        "-C", str(count), "-W", str(deadline)], capture_output=True)
    return r.stdout if binary else r.stdout.decode(errors="replace").splitlines()


def pub(topic, payload):
    subprocess.run(["mosquitto_pub", "-p", str(port), "-h", "127.0.0.1", "-t", topic, "-m", payload, "-q", "1"], check=True)


def status_is(**want):
    return wait_for(lambda: all((read_json(state) or {}).get(k) == v for k, v in want.items()), 30)


mosq = broker()
daemon = subprocess.Popen([BIN, "run", "--config", conf, "--display", "headless", "--size", "800x480",
                           "--control", sock, "--status", state],
                          stderr=open(os.path.join(work, "daemon.log"), "w"), stdout=subprocess.DEVNULL)
bridge = None
try:
    wait_for(lambda: os.path.exists(sock), 30)
    # A thermal zone as a Raspberry Pi 4 has it (bcm2711_thermal: type cpu-thermal, millidegrees).
    zone = os.path.join(work, "sys", "class", "thermal", "thermal_zone0")
    os.makedirs(zone)
    for name, text in (("type", "cpu-thermal\n"), ("temp", "48312\n")):
        with open(os.path.join(zone, name), "w") as f:
            f.write(text)
    bridge = subprocess.Popen([BRIDGE, "--config", conf], stderr=open(os.path.join(work, "bridge.log"), "w"),
                              stdout=subprocess.DEVNULL, env=dict(os.environ, TICKERBOARD_SYSFS_ROOT=os.path.join(work, "sys")))
    # 18 fixed entities (the temperature among them) and 4 sensors per instrument, all retained.
    configs = sub("homeassistant/#", 26)
    topics = {line.split(" ", 1)[0]: json.loads(line.split(" ", 1)[1]) for line in configs if " " in line}
    instrument = topics.get("homeassistant/select/hall/instrument/config", {})
    result("mqtt-discovery-retained", len(topics) == 26 and instrument.get("options") == ["A", "B"]
           and "homeassistant/light/hall/screen/config" in topics and "homeassistant/image/hall/screen_picture/config" in topics
           and topics.get("homeassistant/sensor/hall/price_b/config", {}).get("unit_of_measurement") == "EUR",
           "%d configs" % len(topics))
    result("mqtt-online", sub("tickerboard/hall/availability", 1) == ["tickerboard/hall/availability online"])
    required = {"sensor": ["state_topic"], "binary_sensor": ["state_topic"], "event": ["state_topic", "event_types"],
                "select": ["command_topic", "options"], "light": ["command_topic"], "switch": ["command_topic"],
                "button": ["command_topic"], "text": ["command_topic"], "image": ["image_topic"]}
    lacking = ["%s: %s" % (t, f) for t, body in topics.items() for f in required.get(t.split("/")[1], ["(unknown component)"])
               if f not in body]
    lacking += ["%s: entity_category" % t for t in topics
                if t.split("/")[3] in ("problem", "missed_vblanks", "memory", "version", "soc_temperature", "data_a")
                and topics[t].get("entity_category") != "diagnostic"]
    result("mqtt-discovery-required-fields", not lacking and len(topics) == 26, "; ".join(lacking))

    # The diagnostic sensors against the status file (missed vblanks stay 0 headless; memory is
    # the status's rss_kb in MiB, read close together, so within a MiB).
    def diagnostics():
        st = read_json(state) or {}
        got = {}
        for name in ("missed_vblanks", "memory", "soc_temperature", "version", "problem"):
            line = sub("tickerboard/hall/%s/state" % name, 1, 5)
            got[name] = line[0].split(" ", 1)[1] if line else None
        a = sub("tickerboard/hall/instrument/a/state", 1, 5)
        got["a"] = json.loads(a[0].split(" ", 1)[1]) if a else {}
        return st, got
    import datetime
    seen = {}

    def agree():
        st, got = diagnostics()
        last = datetime.datetime.fromtimestamp(st.get("last_data_time") or 0, datetime.timezone.utc).isoformat()
        seen.update(st=st, got=got, last=last)
        return (st.get("instrument_id") == "A" and st.get("last_data_time") is not None
                and got["missed_vblanks"] == str(st.get("missed_vblanks")) and got["memory"] is not None
                and abs(float(got["memory"]) - (st.get("rss_kb") or 0) / 1024) < 1.0 and got["soc_temperature"] == "48.3"
                and got["problem"] == ("ON" if st.get("problem") or st.get("problems") else "OFF")
                and got["a"].get("last_data") == last and bool(got["version"]))
    # The status file is rewritten every few seconds and the bridge polls every second: they agree
    # once both have read the same state (memory settles after the first frames).
    ok = wait_for(agree, 60)
    st, got, last = seen.get("st", {}), seen.get("got", {}), seen.get("last")
    result("mqtt-diagnostics-equal-status", ok, "%s; status missed %s rss_kb %s last_data_time %s (%s)" % (
        got, st.get("missed_vblanks"), st.get("rss_kb"), st.get("last_data_time"), last))

    pub("tickerboard/hall/instrument/set", "B")
    shown = status_is(instrument_id="B")
    state_back = sub("tickerboard/hall/instrument/state", 1)
    result("mqtt-select-instrument-reaches-screen", bool(shown) and state_back == ["tickerboard/hall/instrument/state B"], str(state_back))
    pub("tickerboard/hall/range/set", "1Y")
    result("mqtt-select-range", bool(status_is(range="1Y")))
    pub("tickerboard/hall/screen/set", "OFF")
    off = status_is(display="off-control")
    light = wait_for(lambda: sub("tickerboard/hall/screen/state", 1, 5) == ["tickerboard/hall/screen/state OFF"], 30)
    pub("tickerboard/hall/screen/set", "ON")
    on = status_is(display="presenting", screen_control="on")
    result("mqtt-light-switches-screen", bool(off) and bool(light) and bool(on))
    pub("tickerboard/hall/message/set", "Closed early")
    result("mqtt-text-message", bool(status_is(message="Closed early")))
    pub("tickerboard/hall/screenshot/set", "PRESS")
    png = sub("tickerboard/hall/screenshot", 1, binary=True)
    result("mqtt-image-is-png", png[:8] == b"\x89PNG\r\n\x1a\n", "%d bytes" % len(png))
    price = sub("tickerboard/hall/instrument/b/state", 1)
    ok = False
    if price:
        body = json.loads(price[0].split(" ", 1)[1])
        ok = isinstance(body.get("price"), (int, float)) and "change_percent" in body
    result("mqtt-price-sensors", ok, price[0] if price else "none")

    # Issue 53 item 5: an alert that fires after a reload (so after the bridge started) reaches Home
    # Assistant as an event of its kind. Events are not retained: the subscriber listens first.
    # A retained probe comes back as soon as the subscription stands: then the reload is sent.
    subprocess.run(["mosquitto_pub", "-p", str(port), "-h", "127.0.0.1", "-t", "tickerboard/hall/probe", "-m", "x", "-r", "-q", "1"], check=True)
    listener = subprocess.Popen(["mosquitto_sub", "-p", str(port), "-h", "127.0.0.1", "-v", "-t", "tickerboard/hall/probe",
                                 "-t", "tickerboard/hall/alert/event", "-C", "2", "-W", "90"], stdout=subprocess.PIPE)
    probe = listener.stdout.readline()
    with open(conf) as f:
        text = f.read()
    with open(conf, "w") as f:
        f.write(text + "[alert a-high]\ninstrument = A\nabove = 1\n")
    daemon.send_signal(signal.SIGHUP)
    out = listener.stdout.readline()
    listener.wait(timeout=10)
    subprocess.run(["mosquitto_pub", "-p", str(port), "-h", "127.0.0.1", "-t", "tickerboard/hall/probe", "-n", "-r", "-q", "1"], check=True)
    event = {}
    try:
        event = json.loads(out.decode().split(" ", 1)[1]) if out.startswith(b"tickerboard/hall/alert/event ") else {}
    except (ValueError, IndexError):
        pass
    fired = status_is(alerts=["a-high"])
    result("mqtt-alert-event", event.get("event_type") == "above" and event.get("alert") == "a-high"
           and event.get("instrument") == "A" and bool(fired), "probe %r, then %r" % (probe[:40], out[:300]))
    with open(conf, "w") as f:
        f.write(text)

    # Issue 54 item 4: B removed by a reload loses its retained discovery and state (it stayed "live"
    # with its last price for ever); A keeps its own.
    with open(conf) as f:
        text = f.read()
    with open(conf, "w") as f:
        f.write(text.replace("[instrument B]\ndaily = B.csv\ncurrency = EUR\n", ""))
    daemon.send_signal(signal.SIGHUP)
    gone = wait_for(lambda: sub("homeassistant/sensor/hall/price_b/config", 1, 2) == []
                    and sub("tickerboard/hall/instrument/b/state", 1, 2) == [], 60)
    kept = sub("homeassistant/sensor/hall/price_a/config", 1, 5)
    result("mqtt-removed-instrument-cleared", bool(gone) and len(kept) == 1,
           "B's config and state %s; A's config %s" % ("cleared" if gone else "still retained", "kept" if kept else "gone"))

    # The broker restarts (without persistence: the retained configs are gone): the bridge reconnects
    # and sends discovery again, and commands work again.
    stop(mosq, signal.SIGTERM, 10)
    mosq = broker()
    again = sub("homeassistant/select/hall/instrument/config", 1, 90)
    pub("tickerboard/hall/instrument/set", "A")
    result("mqtt-broker-restart-survived", bool(again) and bool(status_is(instrument_id="A")), "%d" % len(again))

    # The daemon stops (the bridge goes on): Home Assistant sees the wall unavailable, not its last
    # prices as live; the daemon back, available again and commands work (issue 53 item 5).
    stop(daemon, signal.SIGTERM, 15)
    down = wait_for(lambda: sub("tickerboard/hall/availability", 1, 5) == ["tickerboard/hall/availability offline"], 60)
    daemon = subprocess.Popen([BIN, "run", "--config", conf, "--display", "headless", "--size", "800x480",
                               "--control", sock, "--status", state],
                              stderr=open(os.path.join(work, "daemon-2.log"), "w"), stdout=subprocess.DEVNULL)
    up = wait_for(lambda: sub("tickerboard/hall/availability", 1, 5) == ["tickerboard/hall/availability online"], 60)
    pub("tickerboard/hall/instrument/set", "A")
    result("mqtt-daemon-stopped-offline", bool(down) and bool(up) and bool(status_is(instrument_id="A")),
           "daemon stopped: %s; started again: %s" % ("offline" if down else "still online", "online" if up else "not online"))

    # The bridge dies without a word: the broker publishes its last will.
    bridge.kill()
    bridge.wait()
    will = wait_for(lambda: sub("tickerboard/hall/availability", 1, 5) == ["tickerboard/hall/availability offline"], 120)
    result("mqtt-last-will-offline", bool(will))

    # Issue 54 item 1: two walls made from one image (the same config, no node-id) on one broker.
    # Each runs in a mount namespace of its own with its own /etc/machine-id, as two machines do.
    # Before, both were node `tickerboard` with client id `tickerboard-tickerboard`: the broker
    # dropped one for the other about once a second, for ever. The node ids expected are
    # "tickerboard-" + FNV-1a 32 of "tickerboard-mqtt:" + the machine id, computed here.
    def fnv(text):
        h = 2166136261
        for b in text.encode():
            h = ((h ^ b) * 16777619) & 0xFFFFFFFF
        return "%08x" % h
    walls_conf = os.path.join(work, "walls.conf")
    with open(walls_conf, "w") as f:
        f.write("[mqtt]\nhost = 127.0.0.1\nport = %d\ncontrol = %s\npoll-interval = 1s\n" % (port, sock))
    walls, nodes = [], []
    for i, mid in enumerate(("1" * 32, "2" * 32)):
        path = os.path.join(work, "machine-id-%d" % i)
        with open(path, "w") as f:
            f.write(mid + "\n")
        nodes.append("tickerboard-" + fnv("tickerboard-mqtt:" + mid))
        walls.append(subprocess.Popen(["unshare", "-m", "sh", "-c", 'mount --bind "$0" /etc/machine-id && exec "$1" --config "$2"',
                                       path, BRIDGE, walls_conf],
                                      stderr=open(os.path.join(work, "wall-%d.log" % i), "w"), stdout=subprocess.DEVNULL))
    try:
        online = all(wait_for(lambda n=n: sub("tickerboard/%s/availability" % n, 1, 5) == ["tickerboard/%s/availability online" % n], 60)
                     for n in nodes)
        # An observation window, not a wait: both stay connected through it (one connection each).
        window_end = time.monotonic() + 15
        while time.monotonic() < window_end:
            time.sleep(0.5)
        connects = [open(os.path.join(work, "wall-%d.log" % i)).read().count("connected to ") for i in range(2)]
        configs = [len(sub("homeassistant/select/%s/instrument/config" % n, 1, 5)) for n in nodes]
        result("mqtt-two-walls-one-image", bool(online) and connects == [1, 1] and configs == [1, 1],
               "nodes %s, online %s, connections in 15 s %s, discovery each %s" % (nodes, bool(online), connects, configs))
    finally:
        for w in walls:
            stop(w, signal.SIGTERM, 10)
finally:
    if bridge and bridge.poll() is None:
        stop(bridge, signal.SIGTERM, 10)
    stop(daemon, signal.SIGTERM, 15)
    stop(mosq, signal.SIGTERM, 10)
passed, failed = results.count(True), results.count(False)
print("%d passed, %d failed" % (passed, failed))
if failed:
    print("work directory kept: %s" % work)
    for log in ("bridge.log", "daemon.log", "broker.log"):
        print("--- %s" % log)
        print(open(os.path.join(work, log)).read()[-2000:])
else:
    shutil.rmtree(work, ignore_errors=True)
sys.exit(1 if failed else 0)
