"""What both Python front ends (nki_frontend, torch_frontend) read the same
way: the --args and --shape texts trnbench hands them."""
