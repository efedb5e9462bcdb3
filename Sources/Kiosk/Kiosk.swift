// Kiosk: placeholder until its module lands.
