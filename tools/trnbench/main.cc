#include <iostream>

#include "support/huge_heap.h"
#include "tools/trnbench/cli.h"

int main(int argc, char** argv) {
  trn::UseHugePagesForHeap();
  return trn::RunCli(argc, argv, std::cout, std::cerr);
}
