// Input: placeholder until its module lands.
