"""What a resource carries under its form (booths, orders...); imports table and below."""
