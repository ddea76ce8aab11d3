package dev.remora.objects;

import dev.remora.verbs.Fabric;
import dev.remora.verbs.sim.SimContext;
import dev.remora.verbs.sim.SimFabric;

/** The registers on the fast software fabric, with two NIC threads so that transfers overlap. */
class RegistersTest extends RegistersContract {
    @Override
    protected Fabric openFabric() {
        return SimFabric.open(new SimContext().nicThreads(2));
    }
}
