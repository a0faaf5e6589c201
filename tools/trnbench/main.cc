#include <iostream>

#include "tools/trnbench/cli.h"
#include "tools/trnbench/huge_heap.h"

int main(int argc, char** argv) {
  trn::UseHugePagesForHeap();
  return trn::RunCli(argc, argv, std::cout, std::cerr);
}
