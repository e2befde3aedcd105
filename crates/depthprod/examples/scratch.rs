use depthprod::*;
fn main() {
    let params = Params::power(
        Family::Scaled,
        7.899822049609873,
        0.10181624039871658,
        0.0015463392047348717,
        1.2434422233873763,
    );
    let pl = Plan::with_route(
        &params,
        RouteOptions {
            theta: 1.0 / 4.0,
            direct_max: 200_000.0,
        },
    )
    .unwrap();
    for n in [1000000000u64, 1000000000000] {
        let e = pl.log_product(n).unwrap();
        println!("{:.16}", e.value);
    }
}
