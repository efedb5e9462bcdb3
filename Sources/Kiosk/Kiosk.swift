// Kiosk: the daemon and its commands: the event loop, configuration, the state machine
// (range cycling, scrubbing, idle, screen power), frame scheduling and damage, systemd integration,
// and the command-line entry points the `tickerboard` executable dispatches to.
