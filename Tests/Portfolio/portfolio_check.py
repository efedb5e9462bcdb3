#!/usr/bin/env python3
"""The independent computation of a portfolio's figures (issue 36), in Python's decimal.

Reads a tickerboard config (the holdings subset: [instrument] daily/currency/price/quantity/cost/
cost-total/lot, [portfolio] currency, [fx PAIR] daily, [data] directory) and the CSV files it
names, taking every price as the decimal text in the file (never through a float), and prints the
figures at each moment given, as `tickerboard render --values` prints them:

    python3 Tests/Portfolio/portfolio_check.py CONFIG UNIX_SECONDS...

The rules are the ones written at the top of Sources/KioskCore/Portfolio/Portfolio.swift; this file
shares no code with it. Products and quotients are quantized to 12 decimals half to even, each
statement line to the currency's minor units half to even.
"""
import sys
from decimal import Decimal, ROUND_HALF_EVEN, getcontext

getcontext().prec = 80
D12 = Decimal("1e-12")
SUBUNITS = {"GBp": "GBP", "GBX": "GBP", "ZAc": "ZAR", "ILA": "ILS"}
MINOR = {"JPY": 0, "KRW": 0, "HUF": 0, "VND": 0, "ISK": 0, "CLP": 0,
         "KWD": 3, "BHD": 3, "OMR": 3, "JOD": 3, "TND": 3}


def q12(x):
    return x.quantize(D12, rounding=ROUND_HALF_EVEN)


def line(x, code):
    return x.quantize(Decimal(1).scaleb(-MINOR.get(code, 2)), rounding=ROUND_HALF_EVEN)


def fmt(x, code):
    return str(line(x, code))


def days(date):
    y, m, d = (int(p) for p in date.split("-"))
    import datetime
    return (datetime.date(y, m, d) - datetime.date(1970, 1, 1)).days


def duration(text):
    """`[data] stale-after`: 3d, 36h, 90m, 45s or seconds; 0 or off: never stale."""
    text = text.strip().lower()
    if text in ("0", "off", "never"):
        return 0
    units = {"d": 86400, "h": 3600, "m": 60, "s": 1}
    if text.endswith("min"):
        return int(float(text[:-3]) * 60)
    if text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    return int(float(text))


def read_config(path):
    sections = {}
    order = []
    section = None
    for raw in open(path, encoding="utf-8"):
        text = raw.strip()
        if not text or text[0] in "#;":
            continue
        if text.startswith("["):
            section = text[1:-1].strip()
            if section not in sections:
                sections[section] = []
                order.append(section)
            continue
        key, _, value = text.partition("=")
        sections[section].append((key.strip().lower(), value.strip()))
    return sections, order


def read_csv(path, column="Close"):
    rows = []
    with open(path, encoding="utf-8") as f:
        header = f.readline().strip().split(",")
        i = header.index(column)
        for raw in f:
            parts = raw.strip().split(",")
            if len(parts) <= i or not parts[i]:
                continue
            rows.append((days(parts[0]) * 86400, Decimal(parts[i])))
    rows.sort()
    return rows


def at_or_before(rows, t):
    found = None
    for i, (time, _) in enumerate(rows):
        if time <= t:
            found = i
        else:
            break
    return found


def main():
    config_path, moments = sys.argv[1], [int(a) for a in sys.argv[2:]]
    sections, order = read_config(config_path)
    directory = dict(sections.get("data", [])).get("directory", "/var/lib/tickerboard")

    def resolve(p):
        return p if p.startswith("/") else directory.rstrip("/") + "/" + p

    holdings = []
    for name in order:
        if not name.startswith("instrument "):
            continue
        keys = sections[name]
        d = dict(keys)
        lots = []
        if "quantity" in d:
            qty = Decimal(d["quantity"])
            cost_total = Decimal(d["cost-total"]) if "cost-total" in d else (
                q12(qty * Decimal(d["cost"])) if "cost" in d else None)
            lots.append((None, qty, cost_total))
        for k, v in keys:
            if k == "lot":
                left, _, right = v.partition("@")
                words = left.split()
                date = days(words[0]) * 86400 if len(words) == 2 else None
                qty = Decimal(words[-1])
                lots.append((date, qty, q12(qty * Decimal(right.strip())) if right.strip() else None))
        if lots:
            column = "Adj Close" if d.get("price", "close").lower() in ("adjusted", "adj close", "adj-close") else "Close"
            holdings.append((name[len("instrument "):].strip(), d.get("currency", "USD"), lots,
                             read_csv(resolve(d["daily"]), column)))
    pairs = {}
    for name in order:
        if name.startswith("fx "):
            pair = name[3:].strip().upper().replace("/", "").replace("-", "")
            pairs[(pair[:3], pair[3:])] = read_csv(resolve(dict(sections[name])["daily"]))
    portfolio = dict(sections.get("portfolio", []))
    stale_after = duration(dict(sections.get("data", [])).get("stale-after", "3d"))
    home = portfolio.get("currency") or SUBUNITS.get(holdings[0][1], holdings[0][1])

    def rate(money, t):
        if money == home:
            return Decimal(1)
        if (money, home) in pairs:
            rows = pairs[(money, home)]
            i = at_or_before(rows, t)
            return None if i is None else rows[i][1]
        rows = pairs[(home, money)]
        i = at_or_before(rows, t)
        return None if i is None else q12(Decimal(1) / rows[i][1])

    for now in moments:
        today = (now // 86400) * 86400
        total_value = total_prev = total_cost = total_gain = day_gain = Decimal(0)
        any_cost = False
        out = []
        missing = []
        stale = []
        for ident, code, lots, rows in holdings:
            money = SUBUNITS.get(code, code)
            scale = Decimal("0.01") if code in SUBUNITS else Decimal(1)
            held = [lot for lot in lots if lot[0] is None or lot[0] <= today]
            qty = sum((lot[1] for lot in held), Decimal(0))
            if qty == 0:
                continue
            i = at_or_before(rows, now)
            r = rate(money, now)
            if i is None or r is None:
                missing.append(ident)
                continue
            quote = rows[i][1]
            local = q12(qty * q12(quote * scale))
            value_home = line(q12(local * r), home)
            prev_home = None
            # Stale: the newest close more than stale-after past the end of its (UTC) day; no day gain.
            is_stale = stale_after > 0 and now - (rows[i][0] + 86400) > stale_after
            if is_stale:
                stale.append(ident)
            elif i > 0:
                # The day's change at one rate, now's.
                prev_home = line(q12(q12(qty * q12(rows[i - 1][1] * scale)) * r), home)
            cost = Decimal(0)
            for date, lqty, lcost in held:
                if lcost is None:
                    cost = None
                    break
                rl = rate(money, date if date is not None else now)
                if rl is None:
                    cost = None
                    break
                cost += line(q12(q12(lcost * scale) * rl), home)
            total_value += value_home
            total_prev += prev_home if prev_home is not None else value_home
            if prev_home is not None:
                day_gain += value_home - prev_home
            if cost is not None:
                any_cost = True
                total_cost += cost
                total_gain += value_home - cost
            key = "position." + ident
            out.append(f"{key}.quantity={qty.normalize():f}")
            out.append(f"{key}.price={quote.normalize():f}")
            out.append(f"{key}.value={fmt(local, money)} {money}")
            out.append(f"{key}.value_home={fmt(value_home, home)}")
            out.append(f"{key}.day_gain_home={fmt(value_home - prev_home, home) if prev_home is not None else '-'}")
            out.append(f"{key}.total_gain_home={fmt(value_home - cost, home) if cost is not None else '-'}")

        def pct(g, b):
            return "-" if b == 0 else str((g * 100 / b).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN))
        print(f"now={now}")
        print(f"portfolio_currency={home}")
        print(f"portfolio_value={fmt(total_value, home)}")
        if any_cost:
            print(f"portfolio_cost={fmt(total_cost, home)}")
            print(f"total_gain={fmt(total_gain, home)}")
        print(f"day_gain={fmt(day_gain, home)}")
        print(f"total_gain_percent={pct(total_gain, total_cost)}")
        print(f"day_gain_percent={pct(day_gain, total_prev)}")
        for o in out:
            print(o)
        print("portfolio_missing=" + (",".join(missing) if missing else "-"))
        print("portfolio_stale=" + (",".join(stale) if stale else "-"))


if __name__ == "__main__":
    main()
