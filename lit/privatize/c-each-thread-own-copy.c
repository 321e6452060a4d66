// Privatized variables are per thread (the runtime makes each rank its own
// thread-local block): threads writing their id into every kind of variable
// read their own values back, and the main thread's copies keep their
// initial values.
// REQUIRES: clang-plugin
// RUN: %clang -O2 -pthread -fplugin=%ampi_plugin -mno-tls-direct-seg-refs %s -o %t
// RUN: %t | FileCheck %s

#include <pthread.h>
#include <stdio.h>

int global = -1;
static int file_static = -1;
int tentative;
double array[4];
struct { int a, b; } record = {-1, -1};

static int bump(int id)
{
    static int calls;
    calls += id;
    return calls;
}

static void *run(void *arg)
{
    int id = (int)(long)arg, bad = 0;
    global = file_static = tentative = record.a = id;
    array[3] = id;
    for (int i = 0; i < 1000; i++) {
        sched_yield();
        bad |= global != id || file_static != id || tentative != id;
        bad |= array[3] != id || record.a != id;
    }
    bad |= bump(id) != id;
    return (void *)(long)bad;
}

int main(void)
{
    pthread_t threads[4];
    long bad = 0;
    for (long i = 0; i < 4; i++)
        pthread_create(&threads[i], NULL, run, (void *)(i + 1));
    for (int i = 0; i < 4; i++) {
        void *result;
        pthread_join(threads[i], &result);
        bad |= (long)result;
    }
    printf("threads %s, main %d %d %d %d\n", bad ? "mixed" : "separate",
           global, file_static, tentative, record.a);
    return 0;
}

// CHECK: threads separate, main -1 -1 0 -1
