print("guided-access: not yet implemented")
