print("guided-accessd: not yet implemented")
