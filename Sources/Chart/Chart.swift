// Chart: placeholder until its module lands.
