print("splashd")
