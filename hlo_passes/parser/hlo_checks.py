def check_structure(module, parser):
    pass
