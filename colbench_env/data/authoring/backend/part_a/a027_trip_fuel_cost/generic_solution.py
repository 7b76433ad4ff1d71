def trip_fuel_cost(distance_km, fuel_efficiency, price_per_liter):
    return round(distance_km / fuel_efficiency * price_per_liter, 2)
