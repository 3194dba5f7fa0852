# prove --format=sarif: artifact URIs are percent-encoded as check's are
# (file:// for an absolute path, a space is %20, '#' is %23). Before, prove
# wrote the raw path.
def leak(cm, obj):
    cm.__enter__()
    if obj:
        pass
    cm.__exit__(None, None, None)

# RUN: rm -rf %t && mkdir -p "%t/a dir"
# RUN: %mkcode pyc %s "%t/a dir/k#1.pyc"
# RUN: %not --code 1 %pyverify prove --format=sarif "%t/a dir/k#1.pyc" | FileCheck %s
# CHECK: "uri": "file:///{{.*}}/a%20dir/k%231.pyc"
# CHECK-NOT: "uri": "{{[^"]*}} dir
