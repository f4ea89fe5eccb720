print("xpb")
