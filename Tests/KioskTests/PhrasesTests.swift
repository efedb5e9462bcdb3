import Chart
@testable import Commands
import CoreDriver
@testable import Kiosk
import Feed
@testable import KioskCore
import TestSupport
import Testing
import Text

/// The screen's words in the locale's language (issue 32 item 7): the table, the header's note, the
/// dates, and that English and the machine-readable outputs stay as they were.
@Suite("Words on the screen in the locale's language")
struct PhrasesTests {
    static let berlin = try! ExchangeTimeZone(identifier: "Europe/Berlin", posixRule: "CET-1CEST,M3.5.0,M10.5.0/3")
    static let newYork = SessionGoldenTests.newYork

    /// Xetra's Thursday 3 Dec 2026, 09:00 to the close at 17:30, in minute bars.
    static let xetraThursday = SessionGoldenTests.bars([(SessionGoldenTests.day(2026, 12, 3), (9, 0), (17, 31))],
                                                       zone: berlin, start: 23_800)

    @Test("every locale of the number table has every phrase, in its own language, with its placeholders")
    func tableIsComplete() {
        for id in NumberLocale.knownIdentifiers {
            let p = Phrases(locale: id)
            let language = String(id.prefix { $0 != "-" })
            #expect(p.language.hasPrefix(language), "\(id) falls back to \(p.language)")
            if language != "en" {
                #expect(p.open != Phrases.english.open && p.closed != Phrases.english.closed, "\(id) says Open/Closed in English")
                #expect(p.months != Phrases.english.months || p.weekdays != Phrases.english.weekdays, "\(id) has English names")
            }
            for text in p.allText where text != p.configLine {
                #expect(!text.isEmpty && text.trimmingSpaces == text, "\(id): \"\(text)\"")
            }
            #expect(p.weekdays.count == 7 && Set(p.weekdays).count == 7, "\(id) weekdays")
            #expect(p.months.count == 12 && Set(p.months).count == 12, "\(id) months")
            let states = [p.open, p.preMarket, p.lunchBreak, p.afterHours, p.closed]
            #expect(Set(states).count == 5, "\(id): two states read the same")
            let marks = [p.markOpen, p.markPreMarket, p.markLunchBreak, p.markAfterHours, p.markClosed]
            #expect(Set(marks).count == 5, "\(id): two watchlist marks read the same")
            let placeholders: [(String, [String])] = [
                (p.opens, ["t"]), (p.reopens, ["t"]), (p.asOf, ["t"]), (p.noUpdateSince, ["t"]), (p.updated, ["t"]),
                (p.delayedMinutes, ["n"]), (p.configLine, ["file", "n"]), (p.waitingForData, ["files"]),
                (p.unknownTimeZone, ["zone"]), (p.noDataFor, ["range"]), (p.dayMonth, ["d", "M"]),
                (p.dayMonthYear, ["d", "M", "y"]), (p.weekdayDayMonth, ["w", "d", "M"]), (p.weekdayTime, ["w", "t"]),
            ]
            for (template, keys) in placeholders {
                for key in keys { #expect(template.contains("{\(key)}"), "\(id): \"\(template)\" lacks {\(key)}") }
            }
        }
    }

    @Test("the de-DE header note: state, next open, 'as of' and the zone in German")
    func germanNote() {
        let series = Self.xetraThursday
        let evening = Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 3, hour: 20, minute: 0)!)
        let note = MarketNote(calendar: .xetr, zone: Self.berlin, now: evening, fetch: nil, newest: series, staleness: nil,
                              phrases: Phrases(locale: "de-DE"))
        #expect(note.text == "Geschlossen · öffnet Fr. 09:00 · Stand 17:30 MEZ")
        // What the status file and logs carry stays English whatever the words on screen.
        #expect(note.state == "closed")
        let english = MarketNote(calendar: .xetr, zone: Self.berlin, now: evening, fetch: nil, newest: series, staleness: nil)
        #expect(english.text == "Closed · opens Fri 09:00 · as of 17:30 CET")
        #expect(english.state == note.state && english.asOf == note.asOf)
    }

    @Test("'as of' and 'no update since' name the month as CLDR abbreviates it: German, Japanese, Chinese")
    func monthNamesInAsOf() {
        let now = Double(Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 4, hour: 12, minute: 0)!))
        func said(_ y: Int, _ m: Int, _ d: Int, _ locale: String) -> String {
            let t = Self.berlin.unixTime(for: CivilDateTime(year: y, month: m, day: d, hour: 17, minute: 30)!)
            return KioskCore.describe(t, in: Self.berlin, now: now, phrases: Phrases(locale: locale))
        }
        #expect(said(2026, 10, 29, "de-DE") == "29. Okt. 17:30 MEZ")
        #expect(said(2026, 3, 4, "de-DE") == "4. März 2026 17:30 MEZ")
        #expect(said(2026, 1, 8, "de-AT") == "8. Jän. 2026 17:30 MEZ")
        #expect(said(2026, 10, 29, "ja-JP") == "10月29日 17:30 CET")
        #expect(said(2025, 10, 29, "zh-CN") == "2025年10月29日 17:30 CET")
        #expect(said(2026, 11, 30, "ko-KR") == "11월 30일 17:30 CET")
        #expect(said(2026, 11, 30, "fr-FR") == "30 nov. 17:30 CET")
        // Within a week the weekday: CLDR's abbreviation in the language.
        let friday = Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 4, hour: 9, minute: 0)!)
        let thursday = Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 3, hour: 20, minute: 0)!)
        #expect(MarketStatus.when(friday, zone: Self.berlin, now: thursday, phrases: Phrases(locale: "ja-JP")) == "(金) 09:00")
        #expect(MarketStatus.when(friday, zone: Self.berlin, now: thursday, phrases: Phrases(locale: "zh-TW")) == "週五 09:00")
    }

    @Test("English output is unchanged for every English locale")
    func englishUnchanged() {
        let evening = Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 3, hour: 20, minute: 0)!)
        for id in NumberLocale.knownIdentifiers where id.hasPrefix("en") {
            let p = Phrases(locale: id)
            #expect(p == .english)
            let note = MarketNote(calendar: .xetr, zone: Self.berlin, now: evening, fetch: nil, newest: Self.xetraThursday,
                                  staleness: nil, phrases: p)
            #expect(note.text == "Closed · opens Fri 09:00 · as of 17:30 CET")
        }
        let bar = Self.newYork.unixTime(for: CivilDateTime(year: 2024, month: 3, day: 8, hour: 15, minute: 59)!)
        #expect(Staleness(newestBarTime: bar, interval: .intraday(seconds: 60), now: bar, staleAfterSeconds: 60,
                          timeZone: Self.newYork).text == "updated 8 Mar 15:59 EST")
    }

    @Test("a locale whose characters the fonts lack keeps English words rather than empty boxes")
    func fontsDecide() throws {
        let fonts = try FontSet.load()
        #expect(Phrases.drawable(locale: "de-DE", fonts: fonts) == Phrases(locale: "de-DE"))
        #expect(Phrases.drawable(locale: "fr-FR", fonts: fonts) == Phrases(locale: "fr-FR"))
        for id in ["ja-JP", "zh-CN", "zh-TW", "ko-KR"] {
            let wanted = Phrases(locale: id)
            let covered = wanted.allText.allSatisfy { $0.unicodeScalars.allSatisfy { fonts.regular.canDraw($0) || $0.value < 0x80 } }
                && wanted.allText.allSatisfy { $0.unicodeScalars.allSatisfy { fonts.bold.canDraw($0) || $0.value < 0x80 } }
            #expect(Phrases.drawable(locale: id, fonts: fonts) == (covered ? wanted : .english), "\(id)")
        }
    }

    @Test("check-config warns, in English, when no installed font can draw the locale's words")
    func checkConfigWarnsOfMissingScript() throws {
        let fonts = try FontSet.load()
        for id in ["de-DE", "ja-JP", "ko-KR"] {
            var config = Config()
            config.locale = try #require(NumberLocale(identifier: id))
            let warned = DataCheck.findings(in: config, file: "t.conf").contains {
                !$0.isError && $0.text == "warning: t.conf: locale: " + KioskCore.missingScriptWarning(id)
            }
            #expect(warned == (Phrases.drawable(locale: id, fonts: fonts) != Phrases(locale: id)), "\(id)")
        }
    }

    @Test("the daemon says once in its log when the fonts cannot draw the locale's words, and draws English")
    func daemonWarnsOfMissingScript() throws {
        var config = Config.watchlist(["DAX"])
        config.locale = try #require(NumberLocale(identifier: "ko-KR"))
        let d = CoreDriver(config: config)
        d.send(.start)
        d.send(.series(instrumentID: "DAX", slot: .daily, series: SampleMarket.daily()))
        d.run(for: 3)
        let drawable = Phrases.drawable(locale: "ko-KR", fonts: try FontSet.load()) == Phrases(locale: "ko-KR")
        let warnings = d.logs.filter { $0.value == "[chart] locale " + KioskCore.missingScriptWarning("ko-KR") }
        #expect(warnings.count == (drawable ? 0 : 1), "\(d.logs.map(\.value))")
        #expect(d.core.model?.instrument.phrases == (drawable ? Phrases(locale: "ko-KR") : .english))
    }

    @Test("the note's least parts go first on a narrow panel in German too")
    func germanNoteFits() throws {
        let screen = TickerScreen(width: 480, height: 320, fonts: try FontSet.load(), scale: 1.5)
        screen.phrases = .german
        let note = "Geschlossen · öffnet Fr. 09:00 · Stand 17:30 MEZ · 15 Min. verzögert · veraltet"
        let labels = TickerLabels(instrument: "DAX", price: "23.874,12 €", change: "▼ −118,43 (−0,49 %)", note: note,
                                  selectedRange: .oneDay, changeColor: screen.palette.down)
        let fitted = screen.fittedNote(labels)
        // The next open and the delay leave before the state and the "as of" time; the stale mark stays last.
        #expect(!fitted.contains("öffnet") && !fitted.contains("verzögert"), "\(fitted)")
        #expect(fitted.isEmpty || fitted.hasSuffix("veraltet"), "\(fitted)")
    }

    @Test("de-DE in pictures: the 1D header note and the bar chart's title, months and MTD mark match their goldens")
    func germanGoldens() throws {
        let fonts = try FontSet.load()
        var numbers = Config()
        numbers.locale = try #require(NumberLocale(identifier: "de-DE"))
        let words = Phrases.drawable(locale: "de-DE", fonts: fonts)
        let market = MarketData(daily: nil, intraday: Self.xetraThursday, timeZone: Self.berlin, calendar: .xetr)
        let line = ScreenModel(instrument: Instrument(name: "DAX · Xetra", market: market,
                                                      priceFormat: numbers.priceFormat(currencyCode: "EUR"), phrases: words),
                               width: 960, height: 540, fonts: fonts, range: .oneDay)
        let evening = Self.berlin.unixTime(for: CivilDateTime(year: 2026, month: 12, day: 3, hour: 20, minute: 0)!)
        line.statusNote = MarketNote(calendar: .xetr, zone: Self.berlin, now: evening, fetch: nil, newest: Self.xetraThursday,
                                     staleness: nil, phrases: words).text
        let lineResult = ImageComparison.checkScreen(SceneRenderer().render(line, at: 0).buffer, golden: "words-1D-closed-de-DE.png")
        #expect(lineResult.passed, "\(lineResult.report)")

        var sample = Instrument.sample(phrases: words)
        sample.priceFormat = numbers.priceFormat(currencyCode: "EUR")
        let bars = ScreenModel(instrument: sample, width: 960, height: 540, fonts: fonts, range: .oneMonth)
        bars.show(.bars, at: 0)
        let barResult = ImageComparison.checkScreen(SceneRenderer().render(bars, at: 5).buffer, golden: "words-bars-de-DE.png")
        #expect(barResult.passed, "\(barResult.report)")
    }

    @Test("the daemon under locale = de-DE: placeholder, note and watchlist marks in German, status keys in English")
    func daemonInGerman() throws {
        var config = Config.watchlist(["DAX"])
        config.locale = try #require(NumberLocale(identifier: "de-DE"))
        let d = CoreDriver(config: config, writesStatus: true)
        d.send(.start)
        d.run(for: 3)
        let waiting = try #require(d.core.model?.placeholder)
        #expect(waiting.hasPrefix("warte auf Daten: "), "\(waiting)")
        #expect(d.core.status().problem?.hasPrefix("waiting for data: ") == true, "\(d.core.status().problem ?? "nil")")
        d.send(.series(instrumentID: "DAX", slot: .daily, series: SampleMarket.daily()))
        d.send(.series(instrumentID: "DAX", slot: .intraday, series: SampleMarket.intraday()))
        d.run(for: 3)
        let status = d.core.status()
        let note = try #require(status.note)
        #expect(["Geöffnet", "Geschlossen", "Vorbörslich", "Nachbörslich", "Stand ", "veraltet"].contains { note.contains($0) },
                "\(note)")
        #expect(!note.contains("as of") && !note.contains("Closed"), "\(note)")
        #expect(status.sessionState.map { ["open", "closed", "pre-market", "after-hours", "lunch-break"].contains($0) } ?? true)
        #expect(WatchlistMarketMark(.closed, phrases: .german).word == "Geschl.")
    }
}

private extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
