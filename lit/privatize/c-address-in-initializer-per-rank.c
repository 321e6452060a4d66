// In C, a static initializer that takes the address of a privatized
// variable cannot stay a link-time constant: each rank has its own copy.
// The plugin zeroes that part of the static image and assigns it in
// __ampi_rank_init, which a constructor hands to the runtime through
// AMPI_Register_rank_init (weak: without the runtime it runs it at once).
// Parts that take no such address stay in the static image.
// REQUIRES: clang-plugin
// RUN: %clang -fplugin=%ampi_plugin -mno-tls-direct-seg-refs -S -emit-llvm -o - %s | FileCheck %s

int verbose;
int counter;
int *current = &counter;
int buffer[8];
int *cursor = buffer + 2;
struct option { const char *name; int has_arg; int *flag; int val; };
struct option options[] = {{"verbose", 0, &verbose, 1}, {"quiet", 0, 0, 2}};
// A constant that takes such an address is privatized as well.
int *const fixed = &counter;

int get(void)
{
    static int calls;
    static int *calls_ptr = &calls;
    return *current + *cursor + *options[0].flag + *fixed + ++*calls_ptr;
}

// CHECK-DAG: @current = {{.*}}thread_local global ptr null
// CHECK-DAG: @cursor = {{.*}}thread_local global ptr null
// CHECK-DAG: @options = {{.*}}thread_local global [2 x %struct.option] [%struct.option { ptr @{{.*}}, i32 0, ptr null, i32 1 }, %struct.option { ptr @{{.*}}, i32 0, ptr null, i32 2 }]
// CHECK-DAG: @fixed = {{.*}}thread_local global ptr null
// CHECK-DAG: @get.calls_ptr = internal thread_local global ptr null
// CHECK-DAG: @llvm.global_ctors = {{.*}}@__ampi_rank_init_register

// CHECK-LABEL: define internal void @__ampi_rank_init_register()
// CHECK: icmp ne ptr @AMPI_Register_rank_init, null
// CHECK: call void @AMPI_Register_rank_init(ptr noundef @__ampi_rank_init)
// CHECK: call void @__ampi_rank_init()

// CHECK: declare extern_weak void @AMPI_Register_rank_init(ptr

// CHECK-LABEL: define internal void @__ampi_rank_init()
// CHECK: [[COUNTER:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@counter)
// CHECK-NEXT: [[CURRENT:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@current)
// CHECK-NEXT: store ptr [[COUNTER]], ptr [[CURRENT]]
// CHECK: @llvm.threadlocal.address.p0(ptr {{.*}}@cursor)
// CHECK: [[VERBOSE:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@verbose)
// CHECK-NEXT: [[OPTIONS:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@options)
// CHECK-NEXT: [[ELEMENT:%.*]] = getelementptr inbounds [2 x %struct.option], ptr [[OPTIONS]], i64 0, i64 0
// CHECK-NEXT: [[FIELD:%.*]] = getelementptr inbounds %struct.option, ptr [[ELEMENT]], i32 0, i32 2
// CHECK-NEXT: store ptr [[VERBOSE]], ptr [[FIELD]]
// CHECK: @llvm.threadlocal.address.p0(ptr {{.*}}@fixed)
// CHECK: [[CALLS:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@get.calls)
// CHECK-NEXT: [[CALLS_PTR:%.*]] = call {{.*}}@llvm.threadlocal.address.p0(ptr {{.*}}@get.calls_ptr)
// CHECK-NEXT: store ptr [[CALLS]], ptr [[CALLS_PTR]]
// CHECK: ret void
