print("tickerboard")
