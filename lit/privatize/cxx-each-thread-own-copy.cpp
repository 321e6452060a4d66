// C++ privatized objects are per thread, constructed on each thread's first
// use (also those initialized with a privatized variable's address) and
// destroyed when the thread ends.
// REQUIRES: clang-plugin
// RUN: %clangxx -std=c++17 -O2 -pthread -fplugin=%ampi_plugin -mno-tls-direct-seg-refs %s -o %t
// RUN: %t | FileCheck %s

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#pragma ampi shared
std::atomic<int> destroyed{0};

struct Tracker {
  int value = -1;
  ~Tracker() { destroyed++; }
};

Tracker tracker;
std::string name = "main";
int counter;
int *current = &counter;
namespace ns {
int hits;
}
struct Stats {
  static int samples;
};
int Stats::samples;

int main() {
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int id = 1; id <= 4; id++)
    threads.emplace_back([id, &bad] {
      tracker.value = ns::hits = Stats::samples = id;
      name = "thread " + std::to_string(id);
      *current = id;
      for (int i = 0; i < 1000; i++) {
        std::this_thread::yield();
        bad += tracker.value != id || ns::hits != id || Stats::samples != id;
        bad += counter != id || name != "thread " + std::to_string(id);
      }
    });
  for (auto &t : threads)
    t.join();
  std::printf("threads %s, destroyed %d, main %d %s %d\n",
              bad ? "mixed" : "separate", destroyed.load(), tracker.value,
              name.c_str(), *current);
}

// CHECK: threads separate, destroyed 4, main -1 main 0
