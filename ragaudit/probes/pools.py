"""Word pools that give every instance its own vocabulary.

The originating study's first full run was invalidated by sibling instances: questions that differed
only in an identifier, so retrieval measured whether the embedder could tell one code
from another. So each pool here is large enough for every instance of the default corpus
(n=25) to draw a different entry (`allocate` in `ragaudit.probes.facts`), and no subject
appears in two pools.
"""

from __future__ import annotations


def _pool(text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.split(";") if item.strip())


SUBJECTS: dict[str, tuple[str, ...]] = {
    "inspection_interval": _pool(
        """fire doors; dock levellers; sprinkler valves; roller shutters; stair handrails;
        loading ramps; extraction hoods; pallet racking; smoke curtains; fire dampers;
        lightning conductors; roof anchors; gutter grilles; bollards; speed humps;
        window restrictors; loft hatches; boiler flues; vent cowls; skylights; drain covers;
        dock bumpers; cable trays; freezer seals; fuel bunds; gas valves; ladder cages;
        steel gratings; wheel stops; guard booths"""
    ),
    "storage_temperature": _pool(
        """solvent drums; adhesive cartridges; resin tins; coolant barrels; lubricant canisters;
        sealant tubes; cleaning concentrates; varnish pails; epoxy kits; primer cans;
        ink cartridges; wax blocks; glue sticks; silicone tubes; photo chemicals;
        toner bottles; bitumen tins; grout bags; foam canisters; wood stain tins;
        degreaser jugs; lacquer drums; solder paste; battery acid; de-icer sacks;
        floor polish; rust remover; dye powders; putty tubs; enamel pots"""
    ),
    "retention_period": _pool(
        """visitor logs; permit records; calibration sheets; handover notes;
        forklift checklists; waste transfer notes; training registers; key issue logs;
        accident reports; delivery notes; fuel receipts; lift service reports;
        cctv recordings; asbestos surveys; noise surveys; payroll slips; cleaning rotas;
        pest reports; boiler logbooks; fire drill reports; tachograph cards;
        vehicle defect sheets; contractor passes; radiation badges; water test results;
        stock counts; alarm test sheets; medical room books; hoist tags; overtime forms"""
    ),
    "minimum_clearance": _pool(
        """switchboards; gas meters; escape hatches; control cabinets; isolation valves;
        alarm panels; riser cupboards; distribution boards; hose reels; fire hydrants;
        transformers; heat pumps; chiller units; dust collectors; spray booths; plant motors;
        vending machines; server racks; water heaters; compressor units; meter boxes;
        kiln doors; oven doors; hydraulic presses; band saws; lathe beds; pallet wrappers;
        charging points; battery chargers; sluice gates"""
    ),
    "maximum_load": _pool(
        """mezzanine shelves; platform trolleys; hand carts; step platforms; tote bins;
        wall brackets; cantilever arms; roll cages; sack trucks; dollies; drum stands;
        shelf beams; lifting slings; work benches; hook racks; stillages; bin lifters;
        tyre racks; pipe racks; glass racks; drawer units; ladder trays; cargo nets;
        spreader beams; plate clamps; gantry beams; reel stands; pallet cages; parts bins;
        trestle tables"""
    ),
    "response_time": _pool(
        """spill alarms; door faults; leak reports; lift breakdowns; freezer alarms;
        power trips; intruder alerts; boiler faults; smoke alarms; flood sensors;
        panic buttons; gate faults; lighting failures; chiller alarms; fume alarms;
        barrier faults; water outages; server alerts; pump failures; roof leaks; gas alarms;
        heating failures; broken windows; blocked drains; jammed shutters; pager calls;
        sprinkler trips; oxygen alarms; compressor trips; lockout calls"""
    ),
    "replacement_interval": _pool(
        """air filters; hydraulic seals; conveyor belts; battery packs; hose couplings;
        drive chains; filter bags; brush strips; fan belts; wiper blades; saw blades;
        light tubes; door seals; grease cartridges; idler rollers; pump impellers;
        spark plugs; brake pads; cutting discs; sanding belts; water filters; mop heads;
        ultraviolet lamps; fuse links; flange gaskets; bearing sets; mesh screens;
        nozzle tips; printer drums; torch bulbs"""
    ),
}

RULES = _pool(
    """work permit rule; hot work rule; lone working rule; two-person lift rule;
    night curfew rule; visitor escort rule; isolation rule; sign-out rule; tagging rule;
    quiet hours rule; badge rule; weekend access rule; camera ban; hearing protection rule;
    clean desk rule; vehicle-free zone rule; glove rule; no-food rule; fume cupboard rule;
    goggles rule; wet floor rule; ladder rule; radio check rule; hard hat rule;
    overtime cap; lock-up rule; key holding rule; smoking ban; phone ban; apron rule"""
)
"""Summarisation: each instance's list is of exceptions to its own rule."""

NEGATION_SUBJECTS = _pool(
    """aerosol cans; open flames; lithium batteries; propane cylinders; bleach containers;
    chlorine tablets; petrol cans; paint thinners; fireworks; welding gas bottles;
    glass bottles; oxidising agents; ammonia solutions; acetone bottles; charcoal sacks;
    safety matches; kerosene drums; nitrate fertiliser; butane refills; pool chemicals;
    fuel additives; compressed air tanks; hand sanitiser crates; lamp oil; turpentine;
    firelighters; hydrogen peroxide; caustic soda; methylated spirits; camping stoves"""
)

TABLE_KINDS = _pool(
    """hoist; racking bay; pallet truck; scissor lift; conveyor run; air receiver; forklift;
    boom lift; stacker; reach truck; tow tractor; chain hoist; jib crane; vacuum lifter;
    goods lift; dock plate; tail lift; platform lift; drum tipper; bin tipper; tugger;
    order picker; walkie stacker; sack hoist; beam trolley; manipulator arm; gantry crane;
    pallet inverter; turntable; mast climber"""
)
"""table_split: the kind of asset each instance's question names."""
