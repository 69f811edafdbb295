# SPDX-License-Identifier: GPL-2.0-or-later
# README.md's Slurm section, run as printed by slurm_configure (helper.bash) with bash -e. The
# one node is 127.0.0.1: the lab's guest has no name service for its host name.
rm-cpuset export slurm --mem-spec-limit 256M --cgroup-conf --node-name "$(hostname -s)" >/tmp/rm-slurm.txt
rm-devices export gres -o /etc/slurm/gres.conf
sed -n '/^# cgroup.conf/,$p' /tmp/rm-slurm.txt >/etc/slurm/cgroup.conf
# the node line's Gres=: gpu:TYPE:COUNT per Type= of gres.conf
gres=$(awk '/^Name=gpu/ { t = "gpu"; for (i = 1; i <= NF; i++) if ($i ~ /^Type=/) t = t ":" substr($i, 6); n[t]++ }
  END { for (t in n) { printf "%s%s:%d", s, t, n[t]; s = "," } }' /etc/slurm/gres.conf)
{ cat <<EOF
ClusterName=rmlab
SlurmctldHost=$(hostname -s)(127.0.0.1)
AuthType=auth/munge
SlurmUser=slurm
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
ProctrackType=proctrack/cgroup
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
GresTypes=gpu
EOF
  sed '/^# cgroup.conf/,$d' /tmp/rm-slurm.txt | sed "s/^NodeName=.*/& NodeAddr=127.0.0.1 ${gres:+Gres=$gres}/"
  echo "PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
} >/etc/slurm/slurm.conf
systemctl start munge && systemctl restart slurmctld slurmd
