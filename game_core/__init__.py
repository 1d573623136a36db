"""Pure rules of the four dice games: no Discord, no asyncio, no SQL, no clock."""
