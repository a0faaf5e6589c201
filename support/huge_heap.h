// The program's heap in 2 MB pages (transparent huge pages), set up once at
// the start of main().
#ifndef TRNBENCH_SUPPORT_HUGE_HEAP_H_
#define TRNBENCH_SUPPORT_HUGE_HEAP_H_

namespace trn {

// Asks the kernel for 2 MB pages on the main thread's heap, where a
// command's programs are lowered and its simulators built. A large kernel's
// program and simulator are tens of MB written once each (exp_tiled at
// 12800000x512: 9,400 page faults of 4 KB, at ~10 us each on a virtual
// machine, a third of the time before its first run); in 2 MB pages they
// take a few dozen. Where glibc or transparent huge pages are not there
// (or under a sanitizer, which has its own allocator) it does nothing; it
// changes no result, only where memory comes from.
void UseHugePagesForHeap();

}  // namespace trn

#endif  // TRNBENCH_SUPPORT_HUGE_HEAP_H_
