#!/bin/bash
# Two stand-in hosts on this one machine, for testing iogauge across hosts under OpenMPI:
# network namespaces iog-10.77.0.2 and iog-10.77.0.3 on a bridge (10.77.0.1), and an
# rsh agent that "logs in" to one by entering its namespace with a host name of its own
# (iogauge-node-2, iogauge-node-3). OpenMPI then starts its daemons there and the ranks
# talk over TCP between the namespaces, as between hosts.
#
#   scripts/mpi-hosts.sh up DIR    make them; write DIR/agent.sh and DIR/hostfile
#   scripts/mpi-hosts.sh down      remove them
#
# mpirun --hostfile DIR/hostfile --mca plm_rsh_agent DIR/agent.sh --mca plm_rsh_no_tree_spawn 1 \
#        --mca btl tcp,self --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 ...
# Needs root and the ip and unshare commands.
set -euo pipefail

NODES=(2 3)

down() {
    for n in "${NODES[@]}"; do
        ip netns del "iog-10.77.0.$n" 2>/dev/null || true
        ip link del "iog-v$n" 2>/dev/null || true
    done
    ip link del iog-br 2>/dev/null || true
}

up() {
    local dir=$1
    down
    ip link add iog-br type bridge
    ip addr add 10.77.0.1/24 dev iog-br
    ip link set iog-br up
    : > "$dir/hostfile"
    for n in "${NODES[@]}"; do
        local ns="iog-10.77.0.$n"
        ip netns add "$ns"
        ip link add "iog-v$n" type veth peer name eth0 netns "$ns"
        ip link set "iog-v$n" master iog-br up
        ip -n "$ns" addr add "10.77.0.$n/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        echo "10.77.0.$n slots=2" >> "$dir/hostfile"
    done
    cat > "$dir/agent.sh" <<'AGENT'
#!/bin/sh
# OpenMPI's rsh agent: run the command "on" the host at $1, its namespace.
addr=$1; shift
exec ip netns exec "iog-$addr" unshare --uts sh -c "hostname iogauge-node-${addr##*.} && exec $*"
AGENT
    chmod +x "$dir/agent.sh"
}

case "${1:-}" in
    up) up "${2:?usage: $0 up DIR}" ;;
    down) down ;;
    *) echo "usage: $0 up DIR | down" >&2; exit 2 ;;
esac
