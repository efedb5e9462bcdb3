// tickerboard: the executable; everything it does lives in the Kiosk module.
import Kiosk

#if canImport(Glibc)
import Glibc
#endif

exit(Tickerboard.main(Array(CommandLine.arguments.dropFirst())))
