#!/bin/busybox sh
b=/bin/busybox
$b mount -t proc proc /proc; $b mount -t sysfs sys /sys
$b mount -t tmpfs -o size=16m top /mnt; $b mkdir /mnt/t
$b mount -t tmpfs -o size=1g,huge=never t /mnt/t
$b truncate -s 64M /mnt/t/hole
$b dd if=/dev/urandom of=/mnt/t/normal bs=1M count=64 2>/dev/null
$b insmod /work/main/build/uml/final-mod/pcbench.ko
P=/sys/module/pcbench/parameters
for r in 1 2 3 4 5 6; do
 for sw in 1 0; do
  for f in hole normal; do
  echo $sw > /proc/sys/vm/pagecache_fast_read
  echo "read path=/mnt/t/$f shape=ownfd mode=seq len=4096 cpus=1 ms=500" > $P/run
  echo "HOLE,$r,$sw,$f,$($b cat $P/result)"
  done
 done
done
$b poweroff -f
