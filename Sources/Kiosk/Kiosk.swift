// Kiosk: the shell around the pure `KioskCore` and the commands. The shell owns what touches the
// machine: the event loop, the display and its renderer, input devices, the data-file watcher, the
// config file, systemd. It turns fds and clocks into core events and carries out the core's
// effects. The commands (`run`, `render`, `bench`, `check-config`, …) are the `tickerboard`
// executable's entry points.
