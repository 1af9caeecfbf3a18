"""Python reference models used by the testbenches (bit-exact behaviour of the RTL cores)."""
