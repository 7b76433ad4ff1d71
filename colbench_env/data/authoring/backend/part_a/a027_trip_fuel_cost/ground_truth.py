def trip_fuel_cost(distance_km, fuel_efficiency, price_per_liter):
    liters = distance_km * 2 * 1.10 * fuel_efficiency / 100
    return round(liters * price_per_liter, 2)
