// Display: placeholder until its module lands.
