"""A student's Rage bot that does not even compile."""
print("HELLO 2"
def main(:
    pass
