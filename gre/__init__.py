"""GRE tunnel decapsulation and encapsulation at line rate (seeds/001), with a C software baseline.

RTL in gre/rtl/, cocotb tests in gre/tb/, the reference model (`fastpath.gre.model`), the CLI
verbs `fastpath gre decap|encap` (gre/cli.py), the bench (`fastpath bench gre`), the C parser and
forwarder in gre/host/. Datasheet: gre/README.md.
"""
