#!/usr/bin/env python3
"""Prints what CLDR says (through Babel, a test-time oracle only) for the locales and currencies
that Sources/Text/NumberLocale.swift and Currency.swift carry, as the TSV the Swift tests compare
against (Tests/Locale/cldr-expected.tsv). Tests/Locale/check-cldr.sh regenerates it and fails if the
checked-in file differs, so that file is CLDR's word, not ours.

Lines:
  currency CODE MINOR_UNITS SYMBOL                  ISO 4217 minor units, CLDR's English symbol
  price    LOCALE CODE VALUE TEXT                   format_currency, symbol as in English (below)
  percent  LOCALE - VALUE TEXT                      the locale's percent pattern with 2 decimals

Deliberate differences from CLDR, applied here so the comparison covers everything else:
  - The currency symbol is the currency's own English symbol in every locale ("$", not en-GB's
    "US$" or fr-CH's "$US"; "¥", not ja-JP's fullwidth "￥", which DejaVu Sans lacks): the locale
    decides separators, grouping, symbol position and spacing.
  - Minus signs are compared as "-": the kiosk draws U+2212 (as wide as "+") where CLDR has a hyphen.
  - Swiss locales (fr-CH): Babel prints values of a million and more without any grouping
    ("1234567,89"), unlike the smaller values and unlike CLDR's pattern (#,##0.00); such values are
    left out for them.
"""
import sys

from babel import Locale
from babel.numbers import format_currency, format_percent, get_currency_precision, get_currency_symbol

LOCALES = ["en-US", "en-GB", "en-CA", "en-AU", "en-IN", "de-DE", "de-AT", "fr-FR", "fr-CH", "it-IT",
           "sv-SE", "pt-BR", "ja-JP", "zh-CN", "zh-TW", "ko-KR"]
CURRENCIES = ["USD", "EUR", "GBP", "JPY", "CHF", "CAD", "AUD", "NZD", "HKD", "SGD", "CNY", "TWD", "KRW",
              "INR", "ILS", "BRL", "MXN", "ZAR", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "TRY", "VND",
              "THB", "PHP", "ISK", "CLP", "KWD", "BHD", "OMR", "JOD", "TND", "SAR", "AED"]
SHOWN = ["USD", "EUR", "GBP", "JPY", "KWD", "INR", "CHF"]
# No ties at 0, 2 or 3 decimals: Babel rounds half to even, the kiosk half away from zero.
VALUES = ["12118.25", "1234.56", "7", "-3.1", "1234567.891", "98765.4321"]
SWISS = {"fr-CH", "de-CH", "it-CH"}


def main():
    out = []
    for code in CURRENCIES:
        out.append(f"currency\t{code}\t{get_currency_precision(code)}\t{get_currency_symbol(code, 'en')}")
    for tag in LOCALES:
        loc = tag.replace("-", "_")
        for code in SHOWN:
            for text in VALUES:
                value = float(text)
                if tag in SWISS and abs(value) >= 1_000_000:
                    continue
                s = format_currency(value, code, locale=loc)
                s = s.replace(get_currency_symbol(code, loc), get_currency_symbol(code, "en"))
                out.append(f"price\t{tag}\t{code}\t{text}\t{s.replace(chr(0x2212), '-')}")
        pattern = Locale.parse(loc).percent_formats[None].pattern.replace("0%", "0.00%").replace("0\u00a0%", "0.00\u00a0%")
        pattern = pattern.replace("0\u202f%", "0.00\u202f%")
        for text in ["1.234", "-0.5", "12.3456"]:
            s = format_percent(float(text) / 100, format=pattern, locale=loc)
            out.append(f"percent\t{tag}\t-\t{text}\t{s.replace(chr(0x2212), '-')}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
