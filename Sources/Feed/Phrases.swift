// The few words the screen draws, for each language the number locales speak: the market's state,
// "as of", the placeholders, the bar chart's title, the watchlist's marks, and CLDR's abbreviated
// weekday and month names with its day-month patterns. In Feed because the market status words are
// made here (MarketStatus), and Chart and KioskCore, which write the rest, both import Feed.
//
// Only pixels are translated: status.json keys, `session_state`, log lines and check-config
// messages stay English whatever the locale.

/// The screen's words in one language. Templates hold `{t}` (a time or date), `{n}` (a number),
/// `{files}`, `{zone}`, `{range}`, `{file}`; date patterns `{d}` (day), `{M}` (abbreviated month),
/// `{y}` (year), `{w}` (abbreviated weekday).
public struct Phrases: Sendable, Equatable {
    /// The language, as a BCP 47 tag (`de`, `zh-Hant`).
    public var language: String

    // The market's state, as the header says it.
    public var open: String
    public var preMarket: String
    public var lunchBreak: String
    public var afterHours: String
    public var closed: String
    public var opens: String
    public var reopens: String

    // The note about the data.
    public var asOf: String
    public var delayed: String
    public var delayedMinutes: String
    public var stale: String
    public var noUpdateSince: String
    public var updated: String

    // Instead of a chart.
    public var waitingForData: String
    public var noDataFile: String
    public var unknownTimeZone: String
    /// `{file} line {n}: ` before a config problem shown on screen.
    public var configLine: String
    public var noDataFor: String
    public var dailyOnly: String

    // The bar chart and the watchlist.
    public var monthlyChange: String
    /// Under the month still in progress.
    public var monthToDate: String
    public var watchlist: String
    /// The tiles' market marks, short: they share a line with the change.
    public var markOpen: String
    public var markPreMarket: String
    public var markLunchBreak: String
    public var markAfterHours: String
    public var markClosed: String

    /// CLDR's abbreviated weekdays (format context), Sunday first.
    public var weekdays: [String]
    /// CLDR's abbreviated months (format context), January first.
    public var months: [String]
    /// A date in this year (CLDR's MMMd), with its year (yMMMd), with its weekday (MMMEd).
    public var dayMonth: String
    public var dayMonthYear: String
    public var weekdayDayMonth: String
    /// A weekday and a clock time (`Fri 09:30`).
    public var weekdayTime: String
    /// Time zone abbreviations this language writes otherwise (German: MEZ for CET).
    public var zoneNames: [String: String]

    /// Instead of the market's state while the wall clock has not been set (1970 at boot).
    public var clockNotSet: String {
        switch language {
        case "de", "de-AT": "Uhrzeit noch nicht gestellt"
        case "fr": "horloge pas encore réglée"
        case "it": "orologio non ancora impostato"
        case "sv": "klockan är inte ställd än"
        case "pt": "relógio ainda não ajustado"
        case "ja": "時刻未設定"
        case "zh", "zh-Hans": "时钟尚未设置"
        case "zh-Hant": "時鐘尚未設定"
        case "ko": "시계가 아직 설정되지 않음"
        default: "clock not set yet"
        }
    }

    /// An alert's banner (`⚠ NAME: ` before it): the condition with `{n}`, the level or the
    /// percentage already in the locale's number format, or the time without a price.
    public var alertAbove: String {
        switch language {
        case "de", "de-AT": "über {n}"
        case "fr": "au-dessus de {n}"
        case "it": "sopra {n}"
        case "sv": "över {n}"
        case "pt": "acima de {n}"
        case "ja": "{n} 超"
        case "zh", "zh-Hans": "高于 {n}"
        case "zh-Hant": "高於 {n}"
        case "ko": "{n} 초과"
        default: "above {n}"
        }
    }

    public var alertBelow: String {
        switch language {
        case "de", "de-AT": "unter {n}"
        case "fr": "en dessous de {n}"
        case "it": "sotto {n}"
        case "sv": "under {n}"
        case "pt": "abaixo de {n}"
        case "ja": "{n} 未満"
        case "zh", "zh-Hans": "低于 {n}"
        case "zh-Hant": "低於 {n}"
        case "ko": "{n} 미만"
        default: "below {n}"
        }
    }

    public var alertMoved: String {
        switch language {
        case "de", "de-AT": "Bewegung von {n} oder mehr"
        case "fr": "variation de {n} ou plus"
        case "it": "variazione di {n} o più"
        case "sv": "rörelse på {n} eller mer"
        case "pt": "variação de {n} ou mais"
        case "ja": "{n} 以上の変動"
        case "zh", "zh-Hans": "变动 {n} 或以上"
        case "zh-Hant": "變動 {n} 或以上"
        case "ko": "{n} 이상 변동"
        default: "moved {n} or more"
        }
    }

    public var alertNoPrice: String {
        switch language {
        case "de", "de-AT": "kein Kurs seit {t}"
        case "fr": "aucun cours depuis {t}"
        case "it": "nessun prezzo da {t}"
        case "sv": "inget pris på {t}"
        case "pt": "sem preço há {t}"
        case "ja": "{t} 価格なし"
        case "zh", "zh-Hans": "{t} 无价格"
        case "zh-Hant": "{t} 無價格"
        case "ko": "{t} 동안 가격 없음"
        default: "no price for {t}"
        }
    }

    /// The market's countdown (`[chart] countdown = on`): `{d}` is a `duration` (below).
    public var closesIn: String {
        switch language {
        case "de", "de-AT": "schließt in {d}"
        case "fr": "ferme dans {d}"
        case "it": "chiude tra {d}"
        case "sv": "stänger om {d}"
        case "pt": "fecha em {d}"
        case "ja": "終了まで {d}"
        case "zh", "zh-Hans": "{d}后收盘"
        case "zh-Hant": "{d}後收盤"
        case "ko": "{d} 후 마감"
        default: "closes in {d}"
        }
    }
    public var opensIn: String {
        switch language {
        case "de", "de-AT": "öffnet in {d}"
        case "fr": "ouvre dans {d}"
        case "it": "apre tra {d}"
        case "sv": "öppnar om {d}"
        case "pt": "abre em {d}"
        case "ja": "開始まで {d}"
        case "zh", "zh-Hans": "{d}后开盘"
        case "zh-Hant": "{d}後開盤"
        case "ko": "{d} 후 개장"
        default: "opens in {d}"
        }
    }
    public var reopensIn: String {
        switch language {
        case "de", "de-AT": "öffnet wieder in {d}"
        case "fr": "reprend dans {d}"
        case "it": "riapre tra {d}"
        case "sv": "öppnar igen om {d}"
        case "pt": "reabre em {d}"
        case "ja": "後場開始まで {d}"
        case "zh", "zh-Hans": "{d}后复市"
        case "zh-Hant": "{d}後復市"
        case "ko": "{d} 후 재개"
        default: "reopens in {d}"
        }
    }
    /// Hours and minutes (`{h}`, `{m}`), and minutes alone.
    public var hoursMinutes: String {
        switch language {
        case "de", "de-AT": "{h} Std. {m} Min."
        case "sv": "{h} tim {m} min"
        case "ja": "{h}時間{m}分"
        case "zh", "zh-Hans": "{h}小时{m}分钟"
        case "zh-Hant": "{h}小時{m}分鐘"
        case "ko": "{h}시간 {m}분"
        default: "{h} h {m} min"
        }
    }
    public var minutesOnly: String {
        switch language {
        case "de", "de-AT": "{m} Min."
        case "ja": "{m}分"
        case "zh", "zh-Hans": "{m}分钟"
        case "zh-Hant": "{m}分鐘"
        case "ko": "{m}분"
        default: "{m} min"
        }
    }

    /// `seconds` as the countdown says it, in whole minutes rounded up (the last minute is
    /// "1 min", never "0 min"): `42 min`, `2 h 10 min`.
    public func duration(seconds: Int64) -> String {
        let minutes = max(1, (seconds + 59) / 60)
        let m = String(minutes % 60), h = String(minutes / 60)
        return minutes < 60 ? Phrases.fill(minutesOnly, ["m": m]) : Phrases.fill(hoursMinutes, ["h": h, "m": m])
    }

    /// The stats line's labels (`[chart] stats`): the day's range, the 52-week range, the volume;
    /// the abbreviations finance sites of each language print.
    public var statsDay: String {
        switch language {
        case "de", "de-AT": "Tag"
        case "fr": "Jour"
        case "it": "Giorno"
        case "sv": "Dag"
        case "pt": "Dia"
        case "ja": "日中"
        case "zh", "zh-Hans": "日内"
        case "zh-Hant": "日內"
        case "ko": "일중"
        default: "Day"
        }
    }
    public var statsYear: String {
        switch language {
        case "de", "de-AT": "52 W."
        case "fr", "pt": "52 sem."
        case "it": "52 sett."
        case "sv": "52 v."
        case "ja", "zh-Hant": "52週"
        case "zh", "zh-Hans": "52周"
        case "ko": "52주"
        default: "52 wk"
        }
    }
    public var statsVolume: String {
        switch language {
        case "de", "de-AT", "fr", "it", "sv", "pt": "Vol."
        case "ja": "出来高"
        case "zh", "zh-Hans", "zh-Hant": "成交量"
        case "ko": "거래량"
        default: "Vol"
        }
    }
    /// CLDR's short decimal format (numbers.decimalFormats-numberSystem-latn.short): the step each
    /// suffix stands for, smallest first. Italian abbreviates no thousands; Japanese, Chinese and
    /// Korean count in myriads (万 = 10^4, 億 = 10^8).
    public var compactSteps: [(Double, String)] {
        switch language {
        case "de", "de-AT": [(1e3, "\u{A0}Tsd."), (1e6, "\u{A0}Mio."), (1e9, "\u{A0}Mrd.")]
        case "fr": [(1e3, "\u{A0}k"), (1e6, "\u{A0}M"), (1e9, "\u{A0}Md")]
        case "it": [(1e6, "\u{A0}Mln"), (1e9, "\u{A0}Mrd")]
        case "sv": [(1e3, "\u{A0}tn"), (1e6, "\u{A0}mn"), (1e9, "\u{A0}md")]
        case "pt": [(1e3, "\u{A0}mil"), (1e6, "\u{A0}mi"), (1e9, "\u{A0}bi")]
        case "ja": [(1e4, "万"), (1e8, "億"), (1e12, "兆")]
        case "zh", "zh-Hans": [(1e4, "万"), (1e8, "亿"), (1e12, "万亿")]
        case "zh-Hant": [(1e4, "萬"), (1e8, "億"), (1e12, "兆")]
        case "ko": [(1e3, "천"), (1e4, "만"), (1e8, "억"), (1e12, "조")]
        default: [(1e3, "K"), (1e6, "M"), (1e9, "B")]
        }
    }

    /// Every phrase and name, for the completeness test and the font check.
    public var allText: [String] {
        [statsDay, statsYear, statsVolume] + compactSteps.map { String($0.1.drop { $0 == "\u{A0}" }) } + [clockNotSet, alertAbove, alertBelow, alertMoved, alertNoPrice, closesIn, opensIn, reopensIn, hoursMinutes, minutesOnly, open, preMarket, lunchBreak, afterHours, closed, opens, reopens, asOf, delayed, delayedMinutes, stale,
         noUpdateSince, updated, waitingForData, noDataFile, unknownTimeZone, configLine, noDataFor, dailyOnly,
         monthlyChange, monthToDate, watchlist, markOpen, markPreMarket, markLunchBreak, markAfterHours, markClosed,
         dayMonth, dayMonthYear, weekdayDayMonth, weekdayTime]
            + weekdays + months + Array(zoneNames.values)
    }
}

extension Phrases {
    /// `template` with each `{key}` replaced.
    public static func fill(_ template: String, _ values: [String: String]) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            out += values[key] ?? "{\(key)}"
            rest = rest[rest.index(after: close)...]
        }
        return out + rest
    }

    /// Whether `text` was made from `template` (its literal text before and after the first
    /// placeholder), so a note's parts can be told apart in any language.
    public static func matches(_ text: String, template: String) -> Bool {
        guard let open = template.firstIndex(of: "{"), let close = template[open...].firstIndex(of: "}") else {
            return text == template
        }
        let prefix = template[..<open], suffix = template[template.index(after: close)...]
        return text.count >= prefix.count + suffix.count && text.hasPrefix(prefix) && text.hasSuffix(suffix)
    }

    public func stateWord(_ state: MarketStatus.State) -> String {
        switch state {
        case .open: return open
        case .preMarket: return preMarket
        case .lunchBreak: return lunchBreak
        case .afterHours: return afterHours
        case .closed: return closed
        }
    }

    public func weekday(_ day: Weekday) -> String { weekdays[day.rawValue] }

    /// `29 Oct`, `29. Okt.`, `10月29日`; with `year`, `29 Oct 2025`.
    public func date(_ date: CivilDate, year: Bool = false) -> String {
        Self.fill(year ? dayMonthYear : dayMonth,
                  ["d": String(date.day), "M": months[date.month - 1], "y": String(date.year), "w": weekday(date.weekday)])
    }

    /// `Fri 27 Nov`, `Fr., 27. Nov.`.
    public func dateWithWeekday(_ date: CivilDate) -> String {
        Self.fill(weekdayDayMonth, ["d": String(date.day), "M": months[date.month - 1], "w": weekday(date.weekday)])
    }

    /// `Fri 09:30`, `Fr. 09:30`, `(金) 09:30`.
    public func weekdayTime(_ day: Weekday, _ clock: String) -> String {
        Self.fill(weekdayTime, ["w": weekday(day), "t": clock])
    }

    /// A zone's abbreviation as this language writes it (`MEZ` in German for `CET`).
    public func zone(_ abbreviation: String) -> String { zoneNames[abbreviation] ?? abbreviation }
}

extension Phrases {
    /// The phrases of a locale of `NumberLocale`'s table (`de-DE`, `zh-TW`); English for any other.
    public init(locale identifier: String) {
        let tag = String(identifier.lowercased().map { $0 == "_" ? "-" : $0 })
        self = Self.byLocale[tag] ?? Self.byLocale[String(tag.prefix { $0 != "-" })] ?? .english
    }

    /// The locales with phrases of their own (the rest of a language shares its first entry's).
    static let byLocale: [String: Phrases] = [
        "en": .english, "de": .german, "de-at": .austrian, "fr": .french, "it": .italian, "sv": .swedish,
        "pt": .portuguese, "ja": .japanese, "zh": .simplifiedChinese, "zh-cn": .simplifiedChinese,
        "zh-tw": .traditionalChinese, "ko": .korean,
    ]

    public static let english = Phrases(
        language: "en",
        open: "Open", preMarket: "Pre-market", lunchBreak: "Lunch break", afterHours: "After hours", closed: "Closed",
        opens: "opens {t}", reopens: "reopens {t}",
        asOf: "as of {t}", delayed: "delayed", delayedMinutes: "delayed {n} min", stale: "stale",
        noUpdateSince: "no update since {t}", updated: "updated {t}",
        waitingForData: "waiting for data: {files}", noDataFile: "no data file configured",
        unknownTimeZone: "unknown time zone {zone}", configLine: "{file} line {n}: ",
        noDataFor: "no data for {range}", dailyOnly: "daily prices (no intraday data)",
        monthlyChange: "monthly change, last 12 months", monthToDate: "MTD", watchlist: "Watchlist",
        markOpen: "Open", markPreMarket: "Pre", markLunchBreak: "Lunch", markAfterHours: "After", markClosed: "Closed",
        weekdays: ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"],
        months: ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"],
        dayMonth: "{d} {M}", dayMonthYear: "{d} {M} {y}", weekdayDayMonth: "{w} {d} {M}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let german = Phrases(
        language: "de",
        open: "Geöffnet", preMarket: "Vorbörslich", lunchBreak: "Mittagspause", afterHours: "Nachbörslich",
        closed: "Geschlossen", opens: "öffnet {t}", reopens: "öffnet wieder {t}",
        asOf: "Stand {t}", delayed: "verzögert", delayedMinutes: "{n} Min. verzögert", stale: "veraltet",
        noUpdateSince: "kein Update seit {t}", updated: "aktualisiert {t}",
        waitingForData: "warte auf Daten: {files}", noDataFile: "keine Datendatei konfiguriert",
        unknownTimeZone: "unbekannte Zeitzone {zone}", configLine: "{file} Zeile {n}: ",
        noDataFor: "keine Daten für {range}", dailyOnly: "Tageskurse (keine Intraday-Daten)",
        monthlyChange: "Veränderung je Monat, letzte 12 Monate", monthToDate: "lfd.", watchlist: "Watchlist",
        markOpen: "Offen", markPreMarket: "Vorb.", markLunchBreak: "Pause", markAfterHours: "Nachb.", markClosed: "Geschl.",
        weekdays: ["So.", "Mo.", "Di.", "Mi.", "Do.", "Fr.", "Sa."],
        months: ["Jan.", "Feb.", "März", "Apr.", "Mai", "Juni", "Juli", "Aug.", "Sept.", "Okt.", "Nov.", "Dez."],
        dayMonth: "{d}. {M}", dayMonthYear: "{d}. {M} {y}", weekdayDayMonth: "{w}, {d}. {M}", weekdayTime: "{w} {t}",
        zoneNames: ["CET": "MEZ", "CEST": "MESZ", "WET": "WEZ", "WEST": "WESZ", "EET": "OEZ", "EEST": "OESZ"])

    /// Austrian German: CLDR's de-AT writes January `Jän.`.
    public static let austrian: Phrases = {
        var p = german
        p.language = "de-AT"
        p.months[0] = "Jän."
        return p
    }()

    public static let french = Phrases(
        language: "fr",
        open: "Ouvert", preMarket: "Pré-ouverture", lunchBreak: "Pause de midi", afterHours: "Après-bourse",
        closed: "Fermé", opens: "ouvre {t}", reopens: "reprend {t}",
        asOf: "cours de {t}", delayed: "différé", delayedMinutes: "différé de {n} min", stale: "obsolète",
        noUpdateSince: "pas de mise à jour depuis {t}", updated: "mis à jour {t}",
        waitingForData: "en attente des données : {files}", noDataFile: "aucun fichier de données configuré",
        unknownTimeZone: "fuseau horaire inconnu {zone}", configLine: "{file} ligne {n} : ",
        noDataFor: "pas de données pour {range}", dailyOnly: "cours quotidiens (pas de données intrajournalières)",
        monthlyChange: "variation mensuelle, 12 derniers mois", monthToDate: "en cours", watchlist: "Liste de suivi",
        markOpen: "Ouvert", markPreMarket: "Pré", markLunchBreak: "Pause", markAfterHours: "Après", markClosed: "Fermé",
        weekdays: ["dim.", "lun.", "mar.", "mer.", "jeu.", "ven.", "sam."],
        months: ["janv.", "févr.", "mars", "avr.", "mai", "juin", "juil.", "août", "sept.", "oct.", "nov.", "déc."],
        dayMonth: "{d} {M}", dayMonthYear: "{d} {M} {y}", weekdayDayMonth: "{w} {d} {M}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let italian = Phrases(
        language: "it",
        open: "Aperto", preMarket: "Pre-apertura", lunchBreak: "Pausa pranzo", afterHours: "After hours",
        closed: "Chiuso", opens: "apre {t}", reopens: "riapre {t}",
        asOf: "dati delle {t}", delayed: "differito", delayedMinutes: "differito di {n} min", stale: "non aggiornato",
        noUpdateSince: "nessun aggiornamento da {t}", updated: "aggiornato {t}",
        waitingForData: "in attesa dei dati: {files}", noDataFile: "nessun file di dati configurato",
        unknownTimeZone: "fuso orario sconosciuto {zone}", configLine: "{file} riga {n}: ",
        noDataFor: "nessun dato per {range}", dailyOnly: "prezzi giornalieri (nessun dato intraday)",
        monthlyChange: "variazione mensile, ultimi 12 mesi", monthToDate: "in corso", watchlist: "Watchlist",
        markOpen: "Aperto", markPreMarket: "Pre", markLunchBreak: "Pausa", markAfterHours: "After", markClosed: "Chiuso",
        weekdays: ["dom", "lun", "mar", "mer", "gio", "ven", "sab"],
        months: ["gen", "feb", "mar", "apr", "mag", "giu", "lug", "ago", "set", "ott", "nov", "dic"],
        dayMonth: "{d} {M}", dayMonthYear: "{d} {M} {y}", weekdayDayMonth: "{w} {d} {M}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let swedish = Phrases(
        language: "sv",
        open: "Öppen", preMarket: "Förhandel", lunchBreak: "Lunchpaus", afterHours: "Efterhandel",
        closed: "Stängd", opens: "öppnar {t}", reopens: "öppnar igen {t}",
        asOf: "per {t}", delayed: "fördröjd", delayedMinutes: "fördröjd {n} min", stale: "inaktuell",
        noUpdateSince: "ingen uppdatering sedan {t}", updated: "uppdaterad {t}",
        waitingForData: "väntar på data: {files}", noDataFile: "ingen datafil angiven",
        unknownTimeZone: "okänd tidszon {zone}", configLine: "{file} rad {n}: ",
        noDataFor: "inga data för {range}", dailyOnly: "dagskurser (inga intradagsdata)",
        monthlyChange: "förändring per månad, senaste 12 månaderna", monthToDate: "pågår", watchlist: "Bevakningslista",
        markOpen: "Öppen", markPreMarket: "Före", markLunchBreak: "Lunch", markAfterHours: "Efter", markClosed: "Stängd",
        weekdays: ["sön", "mån", "tis", "ons", "tors", "fre", "lör"],
        months: ["jan.", "feb.", "mars", "apr.", "maj", "juni", "juli", "aug.", "sep.", "okt.", "nov.", "dec."],
        dayMonth: "{d} {M}", dayMonthYear: "{d} {M} {y}", weekdayDayMonth: "{w} {d} {M}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let portuguese = Phrases(
        language: "pt",
        open: "Aberto", preMarket: "Pré-abertura", lunchBreak: "Intervalo", afterHours: "After-market",
        closed: "Fechado", opens: "abre {t}", reopens: "reabre {t}",
        asOf: "cotação de {t}", delayed: "atrasado", delayedMinutes: "atraso de {n} min", stale: "desatualizado",
        noUpdateSince: "sem atualização desde {t}", updated: "atualizado {t}",
        waitingForData: "aguardando dados: {files}", noDataFile: "nenhum arquivo de dados configurado",
        unknownTimeZone: "fuso horário desconhecido {zone}", configLine: "{file} linha {n}: ",
        noDataFor: "sem dados para {range}", dailyOnly: "preços diários (sem dados intradiários)",
        monthlyChange: "variação mensal, últimos 12 meses", monthToDate: "parcial", watchlist: "Lista",
        markOpen: "Aberto", markPreMarket: "Pré", markLunchBreak: "Interv.", markAfterHours: "After", markClosed: "Fechado",
        weekdays: ["dom.", "seg.", "ter.", "qua.", "qui.", "sex.", "sáb."],
        months: ["jan.", "fev.", "mar.", "abr.", "mai.", "jun.", "jul.", "ago.", "set.", "out.", "nov.", "dez."],
        dayMonth: "{d} de {M}", dayMonthYear: "{d} de {M} de {y}", weekdayDayMonth: "{w}, {d} de {M}",
        weekdayTime: "{w} {t}", zoneNames: [:])

    public static let japanese = Phrases(
        language: "ja",
        open: "取引中", preMarket: "プレマーケット", lunchBreak: "昼休み", afterHours: "時間外取引",
        closed: "取引終了", opens: "取引開始 {t}", reopens: "後場開始 {t}",
        asOf: "{t} 時点", delayed: "遅延", delayedMinutes: "{n}分遅延", stale: "未更新",
        noUpdateSince: "{t} 以降更新なし", updated: "{t} 更新",
        waitingForData: "データ待ち: {files}", noDataFile: "データファイル未設定",
        unknownTimeZone: "不明なタイムゾーン {zone}", configLine: "{file} {n}行目: ",
        noDataFor: "{range} のデータなし", dailyOnly: "日足のみ (日中データなし)",
        monthlyChange: "月間騰落率 (過去12か月)", monthToDate: "月初来", watchlist: "ウォッチリスト",
        markOpen: "取引中", markPreMarket: "プレ", markLunchBreak: "昼休み", markAfterHours: "時間外", markClosed: "終了",
        weekdays: ["日", "月", "火", "水", "木", "金", "土"],
        months: ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
        dayMonth: "{M}{d}日", dayMonthYear: "{y}年{M}{d}日", weekdayDayMonth: "{M}{d}日({w})", weekdayTime: "({w}) {t}",
        zoneNames: [:])

    public static let simplifiedChinese = Phrases(
        language: "zh-Hans",
        open: "交易中", preMarket: "盘前", lunchBreak: "午间休市", afterHours: "盘后", closed: "已收盘",
        opens: "开盘 {t}", reopens: "复市 {t}",
        asOf: "截至 {t}", delayed: "延时", delayedMinutes: "延时 {n} 分钟", stale: "数据过时",
        noUpdateSince: "自 {t} 起未更新", updated: "更新于 {t}",
        waitingForData: "等待数据：{files}", noDataFile: "未配置数据文件",
        unknownTimeZone: "未知时区 {zone}", configLine: "{file} 第 {n} 行：",
        noDataFor: "{range} 无数据", dailyOnly: "仅日线 (无日内数据)",
        monthlyChange: "月涨跌幅，近 12 个月", monthToDate: "月初至今", watchlist: "自选",
        markOpen: "交易中", markPreMarket: "盘前", markLunchBreak: "午休", markAfterHours: "盘后", markClosed: "已收盘",
        weekdays: ["周日", "周一", "周二", "周三", "周四", "周五", "周六"],
        months: ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
        dayMonth: "{M}{d}日", dayMonthYear: "{y}年{M}{d}日", weekdayDayMonth: "{M}{d}日{w}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let traditionalChinese = Phrases(
        language: "zh-Hant",
        open: "交易中", preMarket: "盤前", lunchBreak: "午休", afterHours: "盤後", closed: "已收盤",
        opens: "開盤 {t}", reopens: "復市 {t}",
        asOf: "截至 {t}", delayed: "延遲", delayedMinutes: "延遲 {n} 分鐘", stale: "資料過時",
        noUpdateSince: "自 {t} 起未更新", updated: "更新於 {t}",
        waitingForData: "等待資料：{files}", noDataFile: "未設定資料檔",
        unknownTimeZone: "未知時區 {zone}", configLine: "{file} 第 {n} 行：",
        noDataFor: "{range} 無資料", dailyOnly: "僅日線 (無盤中資料)",
        monthlyChange: "每月漲跌，近 12 個月", monthToDate: "月初至今", watchlist: "自選股",
        markOpen: "交易中", markPreMarket: "盤前", markLunchBreak: "午休", markAfterHours: "盤後", markClosed: "已收盤",
        weekdays: ["週日", "週一", "週二", "週三", "週四", "週五", "週六"],
        months: ["1月", "2月", "3月", "4月", "5月", "6月", "7月", "8月", "9月", "10月", "11月", "12月"],
        dayMonth: "{M}{d}日", dayMonthYear: "{y}年{M}{d}日", weekdayDayMonth: "{M}{d}日 {w}", weekdayTime: "{w} {t}",
        zoneNames: [:])

    public static let korean = Phrases(
        language: "ko",
        open: "장중", preMarket: "장 시작 전", lunchBreak: "점심 휴장", afterHours: "시간외 거래", closed: "장 마감",
        opens: "개장 {t}", reopens: "재개 {t}",
        asOf: "{t} 기준", delayed: "지연", delayedMinutes: "{n}분 지연", stale: "업데이트 안 됨",
        noUpdateSince: "{t} 이후 업데이트 없음", updated: "{t} 업데이트",
        waitingForData: "데이터 대기 중: {files}", noDataFile: "설정된 데이터 파일 없음",
        unknownTimeZone: "알 수 없는 시간대 {zone}", configLine: "{file} {n}행: ",
        noDataFor: "{range} 데이터 없음", dailyOnly: "일별 가격 (장중 데이터 없음)",
        monthlyChange: "월간 변동, 최근 12개월", monthToDate: "이번 달", watchlist: "관심 종목",
        markOpen: "장중", markPreMarket: "장전", markLunchBreak: "점심", markAfterHours: "시간외", markClosed: "마감",
        weekdays: ["일", "월", "화", "수", "목", "금", "토"],
        months: ["1월", "2월", "3월", "4월", "5월", "6월", "7월", "8월", "9월", "10월", "11월", "12월"],
        dayMonth: "{M} {d}일", dayMonthYear: "{y}년 {M} {d}일", weekdayDayMonth: "{M} {d}일 ({w})",
        weekdayTime: "({w}) {t}", zoneNames: [:])
}
