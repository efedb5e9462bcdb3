// Text: placeholder until its module lands.
