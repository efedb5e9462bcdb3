// Feed: placeholder until its module lands.
