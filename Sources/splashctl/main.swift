print("splashctl")
