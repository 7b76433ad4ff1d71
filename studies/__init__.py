"""Research studies: one folder per question asked, holding its script(s), README and results (see
``studies/README.md``). Not part of the installed package; run a study's script from a checkout as
``python -m studies.<study>.<script>``."""
