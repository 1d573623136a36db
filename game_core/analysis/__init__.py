"""The analysis lab: simulations and exact tables that answer the rule cards' questions."""
