#include <iostream>

#include "tools/trnbench/cli.h"

int main(int argc, char** argv) {
  return trn::RunCli(argc, argv, std::cout, std::cerr);
}
